/**
 * The console's form fields as the core's inputs: the texts people type read by
 * shared/webhooks/text-input.ts, as the CLI reads its options, so a form and a command line
 * accept the same things.
 */
import { AppError, badRequest, isAppError } from '../../shared/errors/app-error.ts';
import { parseTime, TIME_FORMAT_REASON } from '../../shared/webhooks/time-range.ts';
import type { RegisterOptions } from '../../shared/webhooks/endpoints/register.ts';
import type { EndpointPatch } from '../../shared/webhooks/endpoints/update.ts';
import { parseEventList, parseFilterText, parseHeaderList } from '../../shared/webhooks/text-input.ts';
import { field } from './context.ts';
import { maskUrl } from '../../shared/webhooks/destinations/credentials.ts';
import type { PageError } from './pages/page-object.ts';

type Form = Record<string, unknown>;

/** `Name: value` lines of a textarea (blank lines skipped). */
export const headerLines = (text: string | undefined): string[] =>
  (text ?? '')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');

/** A whole number field, or `undefined` when empty; refused (422 `code`) when not a number. */
function wholeNumber(form: Form, name: string, code: string): number | undefined {
  const text = field(form, name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value))
    throw new AppError(422, `${name} must be a whole number`, { code, data: { field: name, value: text } });
  return value;
}

/** The register form: url, events, filter, description, owner (admins), headers, signing, rate limit, ordering. */
export function registerInput(form: Form, options: { admin: boolean }): RegisterOptions {
  const headers = parseHeaderList(headerLines(field(form, 'headers')));
  const filter = parseFilterText(field(form, 'filter'), 'the filter');
  const rateLimit = wholeNumber(form, 'rateLimit', 'APP_WEBHOOK_RATE_LIMIT_INVALID');
  return {
    url: field(form, 'url') ?? '',
    events: parseEventList(field(form, 'events') ?? '') ?? [],
    ...(filter === undefined ? {} : { filter }),
    ...(field(form, 'description') ? { description: field(form, 'description') } : {}),
    ...(options.admin && field(form, 'owner') ? { owner: field(form, 'owner') } : {}),
    ...(headers ? { headers } : {}),
    ...(field(form, 'signing') ? { signing: field(form, 'signing') } : {}),
    ...(rateLimit === undefined ? {} : { rateLimit }),
    ...(field(form, 'ordering') ? { ordering: field(form, 'ordering') } : {}),
  } as RegisterOptions;
}

/** How the settings form shows a stored header value: the values are revealed only after a confirmation. */
export const HEADER_VALUE_MASK = '***';

/**
 * The settings form: every field it shows is sent; an empty filter, description, header list or
 * rate limit removes it. A header whose value is left as shown ({@link HEADER_VALUE_MASK}) is
 * given as null: the core keeps its stored value.
 */
export function settingsPatch(form: Form): EndpointPatch {
  const typed = parseHeaderList(headerLines(field(form, 'headers')));
  const headers =
    typed &&
    Object.fromEntries(
      Object.entries(typed).map(([name, value]) => [name, value === HEADER_VALUE_MASK ? null : value]),
    );
  return {
    url: field(form, 'url') ?? '',
    events: parseEventList(field(form, 'events') ?? '') ?? [],
    filter: (parseFilterText(field(form, 'filter'), 'the filter') ?? null) as EndpointPatch['filter'],
    description: field(form, 'description') ?? null,
    headers: headers ?? null,
    rateLimit: wholeNumber(form, 'rateLimit', 'APP_WEBHOOK_RATE_LIMIT_INVALID') ?? null,
    ...(field(form, 'ordering') ? { ordering: field(form, 'ordering') as EndpointPatch['ordering'] } : {}),
  };
}

/**
 * A time the console wrote into a form itself (ISO 8601, as the API answers it), or undefined when
 * the form has none; anything else is 400 `APP_BODY_INVALID` naming the field.
 */
export function timeOfForm(form: Form, name: string): Date | undefined {
  const text = field(form, name);
  if (text === undefined) return undefined;
  const time = new Date(text);
  if (!/^\d{4}-\d\d-\d\dT/.test(text) || Number.isNaN(time.getTime()))
    throw badRequest(`the form field ${JSON.stringify(name)} must be an ISO 8601 time`, {
      code: 'APP_BODY_INVALID',
      data: { field: name },
    });
  return time;
}

/**
 * A time of a filter: ISO 8601, or what a `datetime-local` field sends (`2026-05-01T12:00`),
 * which is read as UTC (the forms say so). The core checks the result.
 */
export function timeField(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(text)
    ? `${text.length === 16 ? `${text}:00` : text}Z`
    : text;
}

/**
 * A listing's `since` and `until` filters as its query takes them: each read by {@link timeField}
 * and then by the core's reader (shared/webhooks/time-range.ts). One it refuses is left out of
 * the query (the rest of the page is still shown) and becomes the page's error naming the field
 * (422), not GraphQL's refusal of a variable.
 */
export function timeFilters(typed: { since: string; until: string }): {
  since: string | null;
  until: string | null;
  errors: PageError[];
} {
  const errors: PageError[] = [];
  const read = (name: 'since' | 'until'): string | null => {
    const text = timeField(typed[name] || undefined);
    try {
      parseTime(name, text);
      return text ?? null;
    } catch (error) {
      if (!isAppError(error)) throw error;
      const reason = (error.data as { reason: string }).reason;
      errors.push({
        message: `${name}: ${reason === TIME_FORMAT_REASON ? 'must be a date and time such as 2026-01-31T12:00' : reason}`,
        ...(error.code ? { code: error.code } : {}),
        status: error.status,
        data: { field: name, value: typed[name] },
      });
      return null;
    }
  };
  return { since: read('since'), until: read('until'), errors };
}

/**
 * The values a form showed, to show them again after a refusal; a url's credentials come back as
 * `***` (a page never shows them: on the settings form `***` keeps the stored ones, on the
 * register form they are typed again).
 */
export const echo = (form: Form, names: readonly string[]): Record<string, string> =>
  Object.fromEntries(
    names.map((name) => [name, name === 'url' ? maskUrl(field(form, name) ?? '') : (field(form, name) ?? '')]),
  );

/**
 * What people type, read the same way wherever they type it (the CLI's options, the console's
 * form fields): event lists, `Name: value` header lines, JSON data and durations. The
 * core checks the values themselves; these only turn text into them.
 */
import { AppError, unprocessable } from '../errors/app-error.ts';
import { formatDuration, parseDuration } from '../config/units.ts';
import { parseHeaderArgument } from './endpoints/headers.ts';
import { MAX_GRACE_MS } from './endpoints/grace-limit.ts';

/** `a.b,c.*` as a list; entries are trimmed but empty ones kept, so `a,,b` is refused, not guessed at. */
export function parseEventList(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  return String(text)
    .split(',')
    .map((entry) => entry.trim());
}

/** `Name: value` texts as a map (the core checks names and values); a name given twice is refused. */
export function parseHeaderList(list: readonly string[] | undefined): Record<string, string> | undefined {
  if (list === undefined || list.length === 0) return undefined;
  const headers: Record<string, string> = {};
  for (const text of list) {
    const [name, value] = parseHeaderArgument(String(text));
    if (Object.keys(headers).some((known) => known.toLowerCase() === name.toLowerCase())) {
      throw unprocessable(`invalid webhook headers: header ${JSON.stringify(name)} is given twice`, {
        code: 'APP_WEBHOOK_HEADERS_INVALID',
        data: { field: 'headers', name, rule: 'duplicate', reason: 'is given twice' },
      });
    }
    headers[name] = value;
  }
  return headers;
}

/** JSON data (default `{}`); invalid JSON is a 400 `APP_WEBHOOK_PAYLOAD_INVALID` naming the problem (`label`: how the caller names the field). */
export function parseJsonData(text: string | undefined, label = '--data'): unknown {
  if (text === undefined) return {};
  try {
    return JSON.parse(String(text));
  } catch (error) {
    throw new AppError(400, `${label} is not valid JSON: ${(error as Error).message}`, {
      code: 'APP_WEBHOOK_PAYLOAD_INVALID',
      data: { field: 'data', reason: 'not valid JSON' },
    });
  }
}

/**
 * A filter typed as JSON text (`--filter`, the console's filter field): empty or blank gives
 * undefined (none given); text that is not JSON is a 422 `APP_WEBHOOK_FILTER_INVALID` naming the
 * problem. The core checks the filter itself.
 */
export function parseFilterText(text: string | undefined, label = '--filter'): unknown {
  if (text === undefined || String(text).trim() === '') return undefined;
  try {
    return JSON.parse(String(text));
  } catch (error) {
    const reason = `${label} is not valid JSON: ${(error as Error).message}`;
    throw unprocessable(reason, { code: 'APP_WEBHOOK_FILTER_INVALID', data: { field: 'filter', path: '', reason } });
  }
}

/**
 * A grace such as `24h` (any duration of shared/config/units.ts, or milliseconds) in milliseconds;
 * 422 `APP_WEBHOOK_GRACE_INVALID` otherwise, and for one longer than the longest the service
 * accepts, said as a duration (`365d`) rather than in the milliseconds of the API.
 */
export function parseGrace(text: string | undefined, label = '--grace'): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseDuration(String(text));
  if (ms === null) {
    throw unprocessable(`${label} ${JSON.stringify(text)} is not a duration such as 30m, 24h or 7d`, {
      code: 'APP_WEBHOOK_GRACE_INVALID',
      data: { field: 'grace', value: text },
    });
  }
  if (ms > MAX_GRACE_MS) {
    throw unprocessable(
      `${label} ${JSON.stringify(text)} is longer than the longest grace accepted, ${formatDuration(MAX_GRACE_MS)} (a year)`,
      { code: 'APP_WEBHOOK_GRACE_INVALID', data: { field: 'grace', value: text } },
    );
  }
  return ms;
}

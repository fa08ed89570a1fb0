/**
 * Reading the webhook API's query parameters into the core's filters. Only translation: the
 * core checks the values (owner, event names, states, times) and names the field it refuses.
 * An action reads only the parameters it declared (action.ts `webhookAction`): the type of its
 * query has those names alone, and any other parameter was refused before it ran
 * (422 `APP_QUERY_PARAMETER_UNKNOWN`).
 */
import { listInvalid } from '../../shared/webhooks/list-filters.ts';
import { parseTimeRange, type TimeRange } from '../../shared/webhooks/time-range.ts';
import type { Query } from '../model-framework/routing/query-parameters.ts';

export type { Query };

/** One value of a parameter; a repeated one is refused (422 `APP_WEBHOOK_LIST_INVALID`). */
export function one<P extends string>(query: Query<P>, name: NoInfer<P>): string | undefined {
  const value = query[name];
  if (Array.isArray(value)) throw listInvalid(name, 'is given more than once', value);
  return value;
}

/** A comma list, also from repeated parameters (`?status=dead&status=done`); empty entries dropped. */
export function list<P extends string>(query: Query<P>, name: NoInfer<P>): string[] | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  return (Array.isArray(value) ? value : [value])
    .flatMap((part) => part.split(','))
    .map((part) => part.trim())
    .filter(Boolean);
}

/** `true` or `false`. */
export function flag<P extends string>(query: Query<P>, name: NoInfer<P>): boolean | undefined {
  const value = one(query, name);
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw listInvalid(name, 'must be true or false', value);
}

/**
 * One of `values`; any other is refused (422 `APP_WEBHOOK_LIST_INVALID`), never read as absent:
 * `?reveal=header` would otherwise answer without the values the caller asked for.
 */
export function choice<P extends string, V extends string>(
  query: Query<P>,
  name: NoInfer<P>,
  values: readonly V[],
): V | undefined {
  const value = one(query, name);
  if (value === undefined || (values as readonly string[]).includes(value)) return value as V | undefined;
  throw listInvalid(name, `must be ${values.join(' or ')}`, value);
}

/** `owner=<tenant>`, or `without_owner=true` for the records without owner (null). */
export function ownerParameter(query: Query<'owner' | 'without_owner'>): string | null | undefined {
  const owner = one(query, 'owner');
  if (flag(query, 'without_owner') === true) {
    if (owner !== undefined) throw listInvalid('without_owner', 'cannot be combined with owner', true);
    return null;
  }
  return owner;
}

/** `since` (inclusive) and `until` (exclusive), ISO 8601. */
export function timeParameters(query: Query<'since' | 'until'>): TimeRange {
  return parseTimeRange({ since: one(query, 'since'), until: one(query, 'until') });
}

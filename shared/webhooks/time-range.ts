/**
 * Time-range filters of the event and delivery listings and of the bulk replay: `since`
 * (inclusive) and `until` (exclusive) as ISO 8601 date-times or Date objects.
 */
import { unprocessable } from '../errors/app-error.ts';

export interface TimeRange {
  since?: Date;
  until?: Date;
}

/** AppError 422 `APP_WEBHOOK_TIME_RANGE_INVALID` naming the field. */
export const timeRangeInvalid = (field: string, reason: string, value?: unknown) =>
  unprocessable(`invalid time ${field}: ${reason}`, {
    code: 'APP_WEBHOOK_TIME_RANGE_INVALID',
    data: { field, reason, value },
  });

/** Why a bound that is not ISO 8601 text is refused (a face that shows its own example words it its way). */
export const TIME_FORMAT_REASON = 'must be an ISO 8601 date-time such as 2026-01-31T12:00:00Z';

// A date (2026-01-31) or a date-time with seconds optional, fraction optional, Z or an offset.
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):?(\d{2})))?$/i;

/**
 * The moment ISO 8601 `text` names (a date, or a date-time with seconds and fraction optional,
 * `Z` or an offset), or undefined when it is not such text or names a day, hour, minute or second
 * that does not exist: `2026-02-30` is refused, not rolled over to March 2 as `Date` would. What
 * every face reads a point in time with (REST and CLI bounds, GraphQL's `DateTime`).
 */
export function readIsoDateTime(text: string): Date | undefined {
  const match = ISO.exec(text.trim());
  if (!match) return undefined;
  const [year, month, day, hour = 0, minute = 0, second = 0, offsetHours = 0, offsetMinutes = 0] = match
    .slice(1)
    .map((part) => (part === undefined ? undefined : Number(part)));
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  if (month! < 1 || month! > 12 || day! < 1 || day! > daysInMonth) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const date = new Date(text.trim());
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/**
 * The moment `value` names (an ISO 8601 text `readIsoDateTime` reads, within the years 0001 to
 * 9999, or a valid Date), or why it names none: what a time range's bound and an event's
 * timestamp are read with.
 */
export function readMoment(value: unknown): { at: Date } | { reason: string } {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? { reason: 'is not a valid date' } : { at: value };
  if (typeof value !== 'string' || !ISO.test(value.trim())) return { reason: TIME_FORMAT_REASON };
  const at = readIsoDateTime(value);
  if (at === undefined) return { reason: 'is not a valid date' };
  // PostgreSQL's timestamptz reaches further, but year 0 and before would be refused (22008)
  if (at.getUTCFullYear() < 1 || at.getUTCFullYear() > 9999) return { reason: 'must be within the years 0001 to 9999' };
  return { at };
}

/** One bound: undefined stays undefined; an ISO 8601 text or a valid Date becomes a Date. */
export function parseTime(field: string, value: unknown): Date | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const read = readMoment(value);
  if ('reason' in read) throw timeRangeInvalid(field, read.reason, value instanceof Date ? undefined : value);
  return read.at;
}

/** `since` and `until` checked; `until` must be after `since`. */
export function parseTimeRange(input: { since?: unknown; until?: unknown }): TimeRange {
  const since = parseTime('since', input.since);
  const until = parseTime('until', input.until);
  if (since && until && until.getTime() <= since.getTime())
    throw timeRangeInvalid('until', 'must be after since', input.until);
  return { ...(since ? { since } : {}), ...(until ? { until } : {}) };
}

/**
 * What the listings of endpoints, events and deliveries share: the refusal of a bad filter and
 * the check of an event-name filter.
 */
import { unprocessable } from '../errors/app-error.ts';
import { validateEventName } from './patterns.ts';
import { describeValue } from '../errors/describe-value.ts';

/** AppError 422 `APP_WEBHOOK_LIST_INVALID` naming the filter. */
export const listInvalid = (field: string, reason: string, value?: unknown) =>
  unprocessable(`invalid filter ${field}: ${reason}`, {
    code: 'APP_WEBHOOK_LIST_INVALID',
    data: { field, reason, value },
  });

/** Throws 422 `APP_WEBHOOK_LIST_INVALID` unless `name` (filter `field`) is a valid event name. */
export function assertEventNameFilter(field: string, name: unknown): void {
  const reason = validateEventName(name as string);
  if (reason !== null) throw listInvalid(field, `event name ${describeValue(name)} ${reason}`, name);
}

/** The page `page` of `perPage` records as LIMIT/OFFSET; no page size: every record. */
export interface PageWindow {
  page?: number;
  perPage?: number;
}

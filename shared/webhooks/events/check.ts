/**
 * What an event must be to be emitted, checked in one place for every face that names one: an
 * emit and one endpoint's send (emit.ts), and the sample event a filter is tried on
 * (filters/try.ts). A sample is so refused exactly when an emit of it would be, by the same code,
 * and a filter is never tried on an event no emit could send.
 */
import { unprocessable } from '../../errors/app-error.ts';
import type { WebhookDeps } from '../deps.ts';
import { checkEventData } from '../event-types/validation.ts';
import type { FilterEvent } from '../filters/grammar.ts';
import { assertEventName } from '../patterns.ts';
import { readMoment } from '../time-range.ts';
import { payloadText, type PayloadText } from './envelope.ts';

/** An event that passed `checkEvent`: its type and its payload's JSON text. */
export interface CheckedEvent {
  type: string;
  data: PayloadText;
}

/**
 * `type` and `payload` as an emit takes them: a valid event name (422
 * `APP_WEBHOOK_EVENT_INVALID`), a payload JSON can carry within `bodyLimit` (422
 * `APP_WEBHOOK_PAYLOAD_INVALID`, 413 `APP_WEBHOOK_PAYLOAD_TOO_LARGE`) that matches its type's
 * schema in the catalog (422 `APP_WEBHOOK_EVENT_DATA_INVALID`), and with
 * `webhooks.strictEventTypes` a type the catalog has (422 `APP_WEBHOOK_EVENT_TYPE_UNKNOWN`;
 * `options.strict: false` leaves that out, as one endpoint's send does).
 */
export async function checkEvent(
  deps: Pick<WebhookDeps, 'sql' | 'config'>,
  type: unknown,
  payload: unknown,
  options: { strict?: boolean } = {},
): Promise<CheckedEvent> {
  const name = assertEventName(type);
  const data = payloadText(payload, deps.config.bodyLimit);
  await checkEventData(deps, name, payload, options);
  return { type: name, data };
}

/**
 * The time of an event given whole (a filter's sample): one an emit can stamp, an ISO 8601
 * date-time of the years 0001 to 9999 (an emit stamps the time it is made, which PostgreSQL
 * stores). Anything else is 422 `APP_WEBHOOK_EVENT_INVALID` with `data.field` `timestamp`.
 */
export function eventTime(value: unknown): Date {
  const read = readMoment(typeof value === 'string' ? value : undefined);
  if ('at' in read) return read.at;
  throw unprocessable(`invalid webhook event timestamp: ${read.reason}`, {
    code: 'APP_WEBHOOK_EVENT_INVALID',
    data: { field: 'timestamp', value, reason: read.reason },
  });
}

/**
 * The event as its receiver sees it, less the delivery's id: what a filter is tested against.
 * `timestamp` is written as every delivery's body writes it (ISO 8601, UTC, milliseconds), so a
 * filter comparing it as text compares what the receiver gets.
 */
export const filterEventOf = (type: string, data: unknown, at: Date): FilterEvent => ({
  type,
  timestamp: at.toISOString(),
  data,
});

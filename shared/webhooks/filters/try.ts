/**
 * Trying a filter before saving it, for every face (`POST /api/v1/webhooks/filter-test`,
 * `app webhooks:filter-test`, the console's "try it" box, GraphQL's `testWebhookFilter`): the
 * filter is checked as a save checks it and run by the same compiled test an emit runs
 * (grammar.ts `miss`), on an event given whole or on one of the caller's retained events. An
 * event given whole is checked as an emit checks its event (events/check.ts), so a sample no
 * emit could send is refused with the emit's own code rather than answered. Anyone
 * who may read endpoints may try a filter (`filters.test` in shared/access/permissions.ts); a
 * retained event is read in the caller's tenant scope, so another tenant's event is a 404.
 */
import { authorize, readScope, type Actor } from '../../access/actor.ts';
import { badRequest, unprocessable } from '../../errors/app-error.ts';
import { describeValue } from '../../errors/describe-value.ts';
import type { WebhookDeps } from '../deps.ts';
import { endpointInScope } from '../endpoints/show.ts';
import { eventInScope } from '../events/show.ts';
import { checkEvent, eventTime, filterEventOf } from '../events/check.ts';
import { matchesEvent } from '../patterns.ts';
import { compileFilter, type FilterEvent, type FilterMiss } from './grammar.ts';

/** What a try is given: the filter (null: none), and either an event or the id of a retained one. */
export interface FilterTestInput {
  filter?: unknown;
  /**
   * `{type, timestamp?, data?}`: the event as its receiver would see it, checked as an emit
   * checks it (timestamp: an ISO 8601 date-time, now when absent; data: `{}` when absent).
   */
  event?: unknown;
  /** `evt_…`: a retained event in the caller's reach. */
  eventId?: unknown;
}

/** What a try answers. Every face answers `matches` and `failed` alone (REST adds its `collection` link). */
export interface FilterTestResult {
  matches: boolean;
  /** The condition that failed first; null when the event matches. */
  failed: FilterMiss | null;
  /** The event the filter was tried on, as its receiver would see it. */
  event: FilterEvent;
}

const KEYS = new Set(['filter', 'event', 'eventId']);
const EVENT_KEYS = new Set(['type', 'timestamp', 'data']);

/** AppError 422 `APP_WEBHOOK_FILTER_TEST_INVALID` naming the field of the try that is wrong. */
const invalid = (field: string, reason: string) =>
  unprocessable(`cannot try the filter: ${field} ${reason}`, {
    code: 'APP_WEBHOOK_FILTER_TEST_INVALID',
    data: { field, reason },
  });

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The event of a try given whole, as its receiver would see it: its type and data checked as an
 * emit checks them (`checkEvent`: same refusals, same codes), data through JSON as a delivery's
 * body carries it, the timestamp one an emit can stamp (`eventTime`) written as the body writes it.
 */
async function givenEvent(deps: Pick<WebhookDeps, 'sql' | 'config'>, value: unknown): Promise<FilterEvent> {
  if (!isObject(value)) throw invalid('event', 'must be an object {type, timestamp?, data?}');
  const unknown = Object.keys(value).filter((key) => !EVENT_KEYS.has(key));
  if (unknown.length > 0) throw invalid(`event.${unknown[0]}`, 'is not a field of an event (type, timestamp, data)');
  const at = value.timestamp === undefined ? new Date() : eventTime(value.timestamp);
  const { type, data } = await checkEvent(deps, value.type, value.data === undefined ? {} : value.data);
  return filterEventOf(type, JSON.parse(data.text), at);
}

/**
 * Tries `input.filter` on `input.event` or on the retained event `input.eventId`, answering
 * whether it matches and, for a miss, the condition that failed first (path and operator). Throws
 * 422 `APP_WEBHOOK_FILTER_INVALID` for a filter a save would refuse, 422
 * `APP_WEBHOOK_FILTER_TEST_INVALID` for a malformed try, what an emit of a given event would throw
 * (`checkEvent`; `APP_WEBHOOK_EVENT_INVALID` also for a timestamp no emit can stamp), 404
 * `APP_WEBHOOK_EVENT_NOT_FOUND` for an event outside the caller's reach; a role that may not read
 * endpoints is refused first (403).
 */
export async function testFilter(
  deps: Pick<WebhookDeps, 'sql' | 'config'>,
  actor: Actor,
  input: FilterTestInput,
): Promise<FilterTestResult> {
  authorize(actor, 'filters.test');
  if (!isObject(input)) throw invalid('body', 'must be an object {filter, event} or {filter, eventId}');
  const unknown = Object.keys(input).filter((key) => !KEYS.has(key));
  if (unknown.length > 0) throw invalid(unknown[0], 'is not a field of a try (filter, event, eventId)');
  if (!('filter' in input)) throw invalid('filter', 'is required (null for none)');
  const hasEvent = input.event !== undefined;
  const hasId = input.eventId !== undefined && input.eventId !== null;
  if (hasEvent && hasId) throw invalid('eventId', 'give either event or eventId, not both');
  if (!hasEvent && !hasId) throw invalid('event', 'is required: give event or eventId');
  const compiled = compileFilter(input.filter);
  let event: FilterEvent;
  if (hasEvent) event = await givenEvent(deps, input.event);
  else {
    if (typeof input.eventId !== 'string') throw invalid('eventId', 'must be an event id (evt_…)');
    const retained = await eventInScope(deps, actor.scope, input.eventId);
    event = filterEventOf(retained.type, retained.data, retained.createdAt);
  }
  const failed = compiled === null ? null : compiled.miss(event);
  return { matches: failed === null, failed, event };
}

/** A retained event an endpoint's filter decides on. */
export interface RecentEvent {
  id: string;
  type: string;
  createdAt: Date;
}

/** Most events `recentEventsOfEndpoint` answers. */
export const RECENT_EVENTS_MAX = 50;

/** How many of the owner's latest events are looked through for those an endpoint subscribes to. */
const RECENT_SCAN = 500;

/**
 * The latest retained events of endpoint `id`'s owner whose type its patterns match (whether
 * its filter let them through or not), newest first, at most `limit` (1 to RECENT_EVENTS_MAX,
 * else 400 `APP_PAGINATION_INVALID`): what its "try it" box offers. The endpoint is read in the
 * actor's scope, so another tenant's endpoint is a 404; a grant that may not read webhooks is
 * refused first (403 `APP_FORBIDDEN`).
 */
export async function recentEventsOfEndpoint(
  deps: Pick<WebhookDeps, 'config' | 'sql' | 'endpoints'>,
  actor: Actor,
  id: string,
  options: { limit?: number } = {},
): Promise<RecentEvent[]> {
  const scope = readScope(actor, 'webhooks.read');
  const limit = options.limit ?? 10;
  // refused, not lowered or raised to fit: a client's mistake shows (the paging rule of every list)
  if (!Number.isInteger(limit) || limit < 1 || limit > RECENT_EVENTS_MAX) {
    throw badRequest(`limit must be a whole number from 1 to ${RECENT_EVENTS_MAX}, got ${describeValue(limit)}`, {
      code: 'APP_PAGINATION_INVALID',
      data: { parameter: 'limit', value: limit },
    });
  }
  const endpoint = await endpointInScope(deps, scope, id);
  // the (owner, created_at desc) index answers it
  const rows = await deps.sql<{ id: string; type: string; created_at: Date }[]>`
    select id, type, created_at from app_events
     where ${endpoint.owner === null ? deps.sql`owner is null` : deps.sql`owner = ${endpoint.owner}`}
     order by created_at desc, id desc limit ${RECENT_SCAN}`;
  return rows
    .filter((row) => matchesEvent(endpoint.events, row.type))
    .slice(0, limit)
    .map((row) => ({ id: row.id, type: row.type, createdAt: row.created_at }));
}

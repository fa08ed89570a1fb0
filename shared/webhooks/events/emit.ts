/**
 * Emitting: `emit(event, payload, {owner})` (to the owner's endpoints only), the same for a
 * caller's tenant scope (`emitEvent`), and `sendToEndpoint` (`webhooks:send`).
 */
import { conflict, payloadTooLarge, tooManyRequests, unprocessable } from '../../errors/app-error.ts';
import { assertEventName, matchesEvent } from '../patterns.ts';
import { assertOwnerFilter } from '../endpoints/fields.ts';
import { endpointRecord } from '../endpoints/store.ts';
import { loadEnabledEndpoints } from '../endpoints/cache.ts';
import { checkEvent, filterEventOf } from './check.ts';
import { deliveriesOfEvent, DuplicateEvent, enqueueDeliveries, type Delivery } from './enqueue.ts';
import type { WebhookDeps } from '../deps.ts';
import type { CompiledFilter, FilterEvent } from '../filters/grammar.ts';
import { ownerForWrite } from '../../access/tenant-scope.ts';
import { authorize, type Actor } from '../../access/actor.ts';
import { inEmitSpan, type EmitSpan } from './emit-span.ts';
import { assertTypeNotReserved } from './reserved-types.ts';
import { bytesInFlight } from '../../security/bytes-in-flight.ts';
import { inTenantReach } from '../deliveries/tenant-reach.ts';

export interface EmitOptions {
  /**
   * The tenant: the event reaches only enabled endpoints of exactly this owner. Absent or null:
   * only endpoints without owner. An emit never reaches every tenant.
   */
  owner?: string | null;
  /**
   * The sender's own id of the event (1 to 64 characters, unique per owner): an emit repeating an
   * `eventId` seen within `webhooks.dedupeWindow` answers the original event's deliveries and
   * queues nothing.
   */
  eventId?: string | null;
  /** Only endpoints with a pattern that both matches and passes this (operational events' operator copies). */
  only?: (pattern: string) => boolean;
}

/** The sender's `eventId`: absent or null, or 1 to 64 visible ASCII characters. Throws 422 `APP_WEBHOOK_EVENT_ID_INVALID`. */
export function assertSourceId(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !/^[\x21-\x7e]{1,64}$/.test(value)) {
    throw unprocessable('invalid eventId: must be 1 to 64 visible ASCII characters (your own id of the event)', {
      code: 'APP_WEBHOOK_EVENT_ID_INVALID',
      data: { field: 'eventId' },
    });
  }
  return value;
}

/**
 * Every delivery keeps its own copy of the signed body, so an emit writes about its payload
 * size times its fan-out (a 1 MB payload to 1,000 endpoints would be 1 GB in one transaction).
 * Over `webhooks.maxFanoutBytes` it is refused with 413 `APP_WEBHOOK_FANOUT_TOO_LARGE` and
 * nothing is written.
 */
export function assertFanoutBytes(limit: number, payloadBytes: number, fanout: number, type: string): void {
  const bytes = payloadBytes * fanout;
  if (bytes > limit) {
    throw payloadTooLarge(
      `event ${type}: a ${payloadBytes}-byte payload to ${fanout} endpoints would write ${bytes} bytes, more than webhooks.maxFanoutBytes (${limit}); nothing was sent`,
      { code: 'APP_WEBHOOK_FANOUT_TOO_LARGE', data: { field: 'data', limit, bytes, payloadBytes, matched: fanout } },
    );
  }
}

/** Bytes of bodies the emits under way in this process are writing, by owner (JSON of the owner, null included). */
const fanoutInFlight = bytesInFlight();

/**
 * Counts `bytes` (payload size times fan-out) against what `owner`'s emits under way in this
 * process are writing, or refuses them: an emit holds every delivery's body in memory, several
 * times over, until its transaction ends (one 64 MB fan-out grew the web process by 200 MB), so
 * one tenant's emits at once may write at most `limit` (`webhooks.maxFanoutBytes`) together,
 * and past it one is refused with 429 `APP_WEBHOOK_FANOUT_BUSY` (`Retry-After: 1`), nothing
 * written. An owner's first emit is always let through (`assertFanoutBytes` bounds it alone).
 * Answers the function that gives the bytes back, once.
 */
export function holdFanoutBytes(owner: string | null, bytes: number, limit: number, type: string): () => void {
  const { before, release } = fanoutInFlight.hold(JSON.stringify(owner), bytes, limit);
  if (release) return release;
  throw tooManyRequests(
    `event ${type}: this tenant's emits under way already write ${before} bytes, and this one would write ${bytes} more, past webhooks.maxFanoutBytes (${limit}) at once; nothing was sent: retry when they are done`,
    {
      code: 'APP_WEBHOOK_FANOUT_BUSY',
      data: { field: 'data', limit, bytes, inFlight: before },
      headers: { 'Retry-After': '1' },
    },
  );
}

/**
 * Emits `event` with `payload` (any JSON value) to every enabled endpoint of `options.owner`
 * whose patterns match it (`*`, the exact name, or a family `<prefix>.*` matching every deeper
 * name) and whose filter, if it has one, matches `{type, timestamp, data}` as its receiver will
 * see them, matching in process over the owner's endpoints (read through `deps.cache` when given,
 * their filters compiled there). How many subscribed endpoints their filters left out is kept
 * with the event and counted in `app_deliveries_filtered_total`.
 * More matches than `webhooks.maxFanout` refuses with 422 `APP_WEBHOOK_FANOUT_EXCEEDED`
 * (data `{field: 'type', limit, matched}`) and writes nothing. Otherwise one transaction writes the event, one
 * delivery and one `app/webhook` job per endpoint; answers the deliveries (none when nothing
 * matched, and then nothing is written). Also throws 422 `APP_WEBHOOK_EVENT_INVALID`,
 * `APP_WEBHOOK_OWNER_INVALID`, `APP_WEBHOOK_PAYLOAD_INVALID`, `APP_WEBHOOK_EVENT_DATA_INVALID` (the
 * catalog's schema for the type), `APP_WEBHOOK_EVENT_TYPE_UNKNOWN` (strict catalog), 413
 * `APP_WEBHOOK_PAYLOAD_TOO_LARGE` or `APP_WEBHOOK_FANOUT_TOO_LARGE`, 429 `APP_WEBHOOK_FANOUT_BUSY`
 * (`holdFanoutBytes`), 503 `APP_WEBHOOK_QUEUE_MISSING`.
 */
export async function emit(
  deps: WebhookDeps,
  event: string,
  payload: unknown,
  options: EmitOptions = {},
): Promise<Delivery[]> {
  return (await emitOnce(deps, event, payload, options)).deliveries;
}

/** What one emit wrote, or the earlier event its `eventId` repeated. */
export interface EmitOutcome {
  /** The event written (or repeated); null when no endpoint subscribed to it (nothing written). */
  event: { id: string; createdAt: Date; filteredOut: number } | null;
  deliveries: Delivery[];
  /** The `eventId` repeated an earlier event: nothing was queued. */
  duplicate: boolean;
}

/**
 * The endpoints among `subscribed` whose filter matches `event`, and how many were left out. The
 * same test as the filter-test route and command (filters/try.ts): a filter's `miss`.
 */
export function passFilters<T extends { filter: CompiledFilter | null }>(
  subscribed: readonly T[],
  event: () => FilterEvent,
): { passed: readonly T[]; filteredOut: number } {
  if (!subscribed.some((endpoint) => endpoint.filter !== null)) return { passed: subscribed, filteredOut: 0 };
  const seen = event();
  const passed = subscribed.filter((endpoint) => endpoint.filter === null || endpoint.filter.miss(seen) === null);
  return { passed, filteredOut: subscribed.length - passed.length };
}

/**
 * `emit`, also answering the event and whether the `eventId` repeated an earlier event (then
 * nothing was queued). Traced as span `emit` (emit-span.ts), the parent of every
 * attempt of its deliveries.
 */
export function emitOnce(
  deps: WebhookDeps,
  event: string,
  payload: unknown,
  options: EmitOptions = {},
): Promise<EmitOutcome> {
  return inEmitSpan((span) => emitInSpan(deps, span, event, payload, options));
}

async function emitInSpan(
  deps: WebhookDeps,
  span: EmitSpan,
  event: string,
  payload: unknown,
  options: EmitOptions,
): Promise<EmitOutcome> {
  const type = assertEventName(event);
  // the rules every stored owner kept: an emit creates no tenant, and one to an owner stored
  // before the whitespace and C1 rules must still reach its endpoints
  const owner = assertOwnerFilter(options?.owner);
  span.describe({ type, owner });
  const sourceId = assertSourceId(options?.eventId);
  const { data } = await checkEvent(deps, type, payload);
  const endpoints = deps.cache ? await deps.cache.get(owner) : await loadEnabledEndpoints(deps, owner);
  const only = options?.only;
  const subscribed = endpoints.filter((endpoint) =>
    only ? matchesEvent(endpoint.events.filter(only), type) : matchesEvent(endpoint.events, type),
  );
  const at = new Date();
  // filters see the data as the receiver will: the JSON text every delivery's body carries
  const { passed: matched, filteredOut } = passFilters(subscribed, () =>
    filterEventOf(type, JSON.parse(data.text), at),
  );
  const limit = deps.config.webhooks.maxFanout;
  if (matched.length > limit) {
    throw unprocessable(
      `event ${type} matches ${matched.length} endpoints, more than webhooks.maxFanout (${limit}); nothing was sent`,
      {
        code: 'APP_WEBHOOK_FANOUT_EXCEEDED',
        data: { field: 'type', limit, matched: matched.length, event: type, owner },
      },
    );
  }
  assertFanoutBytes(deps.config.webhooks.maxFanoutBytes, data.bytes, matched.length, type);
  const release = holdFanoutBytes(owner, data.bytes * matched.length, deps.config.webhooks.maxFanoutBytes, type);
  try {
    const { eventId, deliveries } = await enqueueDeliveries(deps, {
      type,
      data,
      owner,
      endpointIds: matched.map((e) => e.id),
      sourceId,
      at,
      filteredOut,
    });
    span.describe({ eventId, fanout: deliveries.length });
    if (eventId === null) return { event: null, deliveries, duplicate: false };
    if (filteredOut > 0) deps.metrics?.filteredOut.inc(filteredOut);
    deps.log.debug(
      { event: type, owner, deliveries: deliveries.length, filteredOut, eventId },
      'webhook event emitted',
    );
    return { event: { id: eventId, createdAt: at, filteredOut }, deliveries, duplicate: false };
  } catch (error) {
    if (!(error instanceof DuplicateEvent)) throw error;
    deps.log.info(
      { event: type, owner, eventId: error.eventId },
      'emit repeats an eventId: the original event is answered, nothing queued',
    );
    const [original] = await deps.sql<{ created_at: Date; filtered_out: number }[]>`
      select created_at, filtered_out from app_events where id = ${error.eventId}`;
    return {
      event: {
        id: error.eventId,
        createdAt: original?.created_at ?? at,
        filteredOut: original?.filtered_out ?? 0,
      },
      deliveries: await deliveriesOfEvent(deps.sql, error.eventId),
      duplicate: true,
    };
  } finally {
    release();
  }
}

/**
 * Sends `event` with `payload` to endpoint `id` alone, whether or not it subscribed to the event
 * (`webhooks:send`), through the queue like any emit; the event carries the endpoint's owner.
 * A disabled endpoint is refused with 409 `APP_WEBHOOK_ENDPOINT_DISABLED` (enable it first):
 * the worker would not deliver to it anyway. Throws 404 `APP_WEBHOOK_NOT_FOUND` (also for an
 * endpoint outside the actor's scope) and the input errors of `emit`, with 422
 * `APP_WEBHOOK_EVENT_TYPE_RESERVED` for a tenant's caller naming one of the service's own types;
 * a role that may not send is refused first (403 `APP_FORBIDDEN`).
 */
export function sendToEndpoint(
  deps: WebhookDeps,
  actor: Actor,
  id: string,
  event: string,
  payload: unknown,
): Promise<Delivery> {
  return inEmitSpan((span) => sendInSpan(deps, span, actor, id, event, payload));
}

async function sendInSpan(
  deps: WebhookDeps,
  span: EmitSpan,
  actor: Actor,
  id: string,
  event: string,
  payload: unknown,
): Promise<Delivery> {
  authorize(actor, 'endpoints.send');
  const { scope } = actor;
  const type = assertEventName(event);
  assertTypeNotReserved(actor, type);
  const { data } = await checkEvent(deps, type, payload, { strict: false });
  // the write below joins the endpoint again on this owner, so the scope checked on this read holds
  const row = await endpointRecord(deps, id, { scope });
  const disabled = () =>
    conflict(`webhook endpoint ${id} is disabled; enable it first (app webhooks:enable ${id})`, {
      code: 'APP_WEBHOOK_ENDPOINT_DISABLED',
      data: { id, disabledAt: row.disabledAt, disabledReason: row.disabledReason },
    });
  if (row.disabledAt !== null) throw disabled();
  const {
    deliveries: [delivery],
  } = await enqueueDeliveries(deps, { type, data, owner: row.owner, endpointIds: [id] });
  span.describe({ type, owner: row.owner, eventId: delivery?.eventId ?? null, fanout: delivery ? 1 : 0 });
  // Disabled, removed or given to another owner between the read and the write.
  if (delivery === undefined)
    throw conflict(`webhook endpoint ${id} changed while sending; try again`, {
      code: 'APP_WEBHOOK_ENDPOINT_CHANGED',
      data: { id },
    });
  deps.log.debug({ event: type, endpoint: id, delivery: delivery.id }, 'webhook event sent to one endpoint');
  return delivery;
}

/**
 * What an emit wrote: the event (null when no endpoint subscribed to it: nothing is written then;
 * an event whose subscribers' filters all left it out is written, without deliveries) and its deliveries.
 */
export interface EmitResult {
  event: { id: string; type: string; owner: string | null; createdAt: Date } | null;
  /** The event type and the owner it was emitted as (also when nothing matched). */
  type: string;
  owner: string | null;
  deliveries: Delivery[];
  /** The `eventId` repeated an earlier event: `event` and `deliveries` are the original's (those the caller reaches), nothing was queued. */
  duplicate: boolean;
  /** Endpoints subscribed to the type that their filters left out. */
  filteredOut: number;
}

/**
 * `emit(type, data, {owner})` for a caller's scope: a member emits only as its owner (naming
 * another is 404 `APP_TENANT_NOT_FOUND`); an admin or the CLI names any owner, or none. A role
 * that may not emit is refused first (403 `APP_FORBIDDEN`), then a tenant's caller naming one of
 * the service's own types (422 `APP_WEBHOOK_EVENT_TYPE_RESERVED`, reserved-types.ts). An emit
 * repeating an `eventId` answers the original event's deliveries that the caller reaches, as its
 * delivery listing would (deliveries/tenant-reach.ts).
 */
export async function emitEvent(
  deps: WebhookDeps,
  actor: Actor,
  input: { type?: unknown; data?: unknown; owner?: unknown; eventId?: unknown },
): Promise<EmitResult> {
  authorize(actor, 'events.emit');
  if (typeof input.type === 'string') assertTypeNotReserved(actor, input.type);
  const owner = ownerForWrite(actor.scope, input.owner) as string | null | undefined;
  const emitted = await emitOnce(deps, input.type as string, input.data === undefined ? {} : input.data, {
    owner,
    eventId: input.eventId as string | undefined,
  });
  const { event, duplicate } = emitted;
  // a repeated eventId answers the original event's deliveries: those the caller still reaches
  // (one to an endpoint since given to another tenant is that tenant's to know of no more)
  const deliveries = duplicate ? await inTenantReach(deps.sql, actor.scope, emitted.deliveries) : emitted.deliveries;
  return {
    event:
      event === null
        ? null
        : {
            id: event.id,
            type: input.type as string,
            owner: (owner as string | null) ?? null,
            createdAt: event.createdAt,
          },
    type: input.type as string,
    owner: owner ?? null,
    deliveries,
    duplicate,
    filteredOut: event?.filteredOut ?? 0,
  };
}

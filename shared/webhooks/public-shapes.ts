/**
 * The public shapes of webhook records: the one home of their field names, types and meanings.
 * REST (api/webhooks-api/present.ts adds the HAL links), GraphQL (its object types are generated
 * from these, api/graphql/webhooks/types.ts), the OpenAPI document (its schemas are generated
 * from these, api/openapi/webhooks.ts) and the CLI's `--json` all answer these fields, made by
 * the projections below from the core's records. A record's own id is `externalId` everywhere
 * (the public identifier every model carries); the ids of the records it refers to are
 * `endpointId` and `eventId`.
 */
import { URL_DESCRIPTION } from './destinations/forms.ts';
import type { ShownEndpoint } from './endpoints/store.ts';
import type { SecretInfo } from './endpoints/show.ts';
import type { EventRecord } from './events/record.ts';
import type { Delivery } from './events/enqueue.ts';
import type { EmitResult } from './events/emit.ts';
import type { AttemptDetails, DeliveryCounts, DeliveryDetails, DeliverySummary } from './deliveries/record.ts';
import { DELIVERY_STATUSES } from './deliveries/record.ts';

/** A JSON Schema (draft 2020-12, as OpenAPI 3.1 uses it). */
export type JsonSchema = Record<string, unknown>;

/** One public field: its JSON Schema and what it means. */
export interface PublicField {
  schema: JsonSchema;
  description?: string;
  /** An id (GraphQL `ID`). */
  id?: true;
  /** Another public shape, by name (the schema is then a reference to it). */
  shape?: ShapeName;
}

export type ShapeName = 'Webhook' | 'WebhookSecret' | 'DeliveryCounts' | 'Event' | 'Delivery' | 'Attempt';

const text = (description?: string, extra: JsonSchema = {}): PublicField => ({
  schema: { type: 'string', ...extra },
  description,
});
const orNull = (field: PublicField): PublicField => {
  const type = field.schema.type as string;
  return { ...field, schema: { ...field.schema, type: [type, 'null'] } };
};
const time = (description?: string): PublicField => text(description, { format: 'date-time' });
const whole = (description?: string, extra: JsonSchema = {}): PublicField => ({
  schema: { type: 'integer', ...extra },
  description,
});
const yesNo = (description?: string): PublicField => ({ schema: { type: 'boolean' }, description });
const id = (prefix: string, description: string): PublicField => ({
  schema: { type: 'string', pattern: `^${prefix}` },
  description,
  id: true,
});
const listOf = (items: JsonSchema, description?: string): PublicField => ({
  schema: { type: 'array', items },
  description,
});
const shapeOf = (shape: ShapeName, description?: string): PublicField => ({
  schema: { type: 'object' },
  description,
  shape,
});

export const DELIVERY_STATUS_VALUES = DELIVERY_STATUSES;
export const ATTEMPT_OUTCOMES = ['done', 'retry', 'dead'] as const;

/** Every public shape: field name -> field, in the order answers list them. */
export const PUBLIC_SHAPES: Readonly<Record<ShapeName, Readonly<Record<string, PublicField>>>> = {
  Webhook: {
    externalId: id('ep_', 'The endpoint id (`ep_…`).'),
    url: text(URL_DESCRIPTION, { format: 'uri' }),
    events: listOf({ type: 'string' }, 'Exact event names, families `<prefix>.*`, or `*`.'),
    filter: {
      schema: { type: ['object', 'null'] },
      description:
        "A subscription filter in MongoDB's query style, matched against `{type, timestamp, data}`: an event reaches the endpoint when its type matches `events` and it matches the filter (docs/webhooks-api.md). null: no filter.",
    },
    owner: orNull(text('The tenant; null: reached only by emits without owner.')),
    description: orNull(text()),
    headers: {
      schema: { type: 'object', additionalProperties: { type: ['string', 'null'] } },
      description:
        'Receiver-specific headers sent with each delivery: their names, values null unless revealed (members and admins).',
    },
    enabled: yesNo('False once disabled (by an operator, or by a 410 from the receiver).'),
    disabledAt: orNull(time()),
    disabledReason: orNull(text()),
    rateLimit: orNull(
      whole(
        'Most deliveries per second to it, across every worker; above it deliveries wait (they do not fail and are not attempts). null: no limit.',
        { minimum: 1 },
      ),
    ),
    ordering: text(
      '`fifo`: one delivery at a time, in emit order (the next waits until the previous is done or dead); `none`: in parallel, up to `webhooks.endpointConcurrency`.',
      { enum: ['none', 'fifo'] },
    ),
    signing: text(
      'How deliveries are signed: `hmac-sha256` (`v1,` entries; the secret is `whsec_…`) or `ed25519` (`v1a,` entries; receivers verify with the public key `whpk_…`).',
      { enum: ['hmac-sha256', 'ed25519'] },
    ),
    createdAt: time(),
    updatedAt: time(),
  },
  WebhookSecret: {
    createdAt: time(),
    expiresAt: orNull(time('When it stops signing (end of a rotation grace period); null: no end.')),
  },
  DeliveryCounts: {
    pending: whole(undefined, { minimum: 0 }),
    running: whole(undefined, { minimum: 0 }),
    done: whole(undefined, { minimum: 0 }),
    dead: whole(undefined, { minimum: 0 }),
    total: whole(undefined, { minimum: 0 }),
  },
  Event: {
    externalId: id('evt_', 'The event id (`evt_…`).'),
    type: text('The event type, such as `invoice.paid`.'),
    owner: orNull(text()),
    data: { schema: {}, description: "The payload given to emit (the envelope's data)." },
    createdAt: time(),
    deliveryCounts: shapeOf('DeliveryCounts', 'Its deliveries by state.'),
    filteredOut: whole('Endpoints subscribed to its type that their filters left out, counted when it was emitted.', {
      minimum: 0,
    }),
  },
  Delivery: {
    externalId: id('msg_', 'The delivery id (`msg_…`), the `webhook-id` header.'),
    status: text(
      'pending (queued, or waiting for a retry at nextAttemptAt; an endpoint that answers quickly: also while its attempt runs, for the first half second), running, done, dead.',
      {
        enum: [...DELIVERY_STATUSES],
      },
    ),
    endpointId: id('ep_', 'The endpoint id.'),
    eventId: id('evt_', 'The event id.'),
    type: text('The event type.'),
    owner: orNull(text()),
    queue: text('The logical queue (`webhooks.queue` when emitted).'),
    attemptCount: whole('Attempts made so far.', { minimum: 0 }),
    nextAttemptAt: orNull(time('When the next attempt is due (pending).')),
    waitingSince: orNull(
      time(
        'Pending with no due time: since when it waits for its endpoint to take it (a free slot of an endpoint held to webhooks.endpointConcurrency attempts in flight while it answers slowly, or its turn in a FIFO line).',
      ),
    ),
    lastStatus: orNull(
      whole(
        "The receiver's status at the last attempt of the current series, when it answered; null while a delivery queued again has made no attempt since.",
      ),
    ),
    lastError: orNull(
      text(
        'Why the last attempt of the current series failed, or why the delivery is dead; null while a delivery queued again (retry, resend, replay) has made no attempt since: the earlier series are history, their errors on their attempts.',
      ),
    ),
    queuedAgainAt: orNull(time('When it was last queued again by hand (retry, resend, replay); null: never.')),
    queuedAgainBy: orNull(
      text(
        'Who queued it again: a user id (`usr_…`), a token id, `portal:<owner>` or `operator` (the CLI); to a caller bound to one tenant, `other` for anyone but itself and its portal; null: never, or not known.',
      ),
    ),
    attemptsBefore: whole(
      'Attempts made before its current series (0: never queued again); the attempts numbered above it are the current series.',
      { minimum: 0 },
    ),
    createdAt: time(),
    updatedAt: time(),
    completedAt: orNull(time()),
  },
  Attempt: {
    attempt: whole(undefined, { minimum: 1 }),
    startedAt: time(),
    durationMs: whole(undefined, { minimum: 0 }),
    status: orNull(whole("The receiver's status, or null when it did not answer.")),
    outcome: text(undefined, { enum: [...ATTEMPT_OUTCOMES] }),
    error: orNull(text()),
    excerpt: orNull(text("The first 64 kB of the receiver's answer.")),
  },
};

/**
 * An endpoint, its header values as the core decided them (null unless the reader revealed
 * them): a read's answer, or a change's through `maskedEndpoint` (endpoints/store.ts).
 */
export function publicEndpoint(endpoint: ShownEndpoint) {
  return {
    externalId: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    filter: endpoint.filter,
    owner: endpoint.owner,
    description: endpoint.description,
    headers: endpoint.headers,
    enabled: endpoint.enabled,
    disabledAt: endpoint.disabledAt,
    disabledReason: endpoint.disabledReason,
    rateLimit: endpoint.rateLimit,
    ordering: endpoint.ordering,
    signing: endpoint.signing,
    createdAt: endpoint.createdAt,
    updatedAt: endpoint.updatedAt,
  };
}

/** The dates of a secret that still signs (never its value). */
export const publicSecret = (secret: SecretInfo) => ({ createdAt: secret.createdAt, expiresAt: secret.expiresAt });

/** An event with its delivery counts. */
export function publicEvent(event: EventRecord) {
  return {
    externalId: event.id,
    type: event.type,
    owner: event.owner,
    data: event.data,
    createdAt: event.createdAt,
    deliveryCounts: publicCounts(event.deliveries),
    filteredOut: event.filteredOut,
  };
}

/** Delivery counts by state. */
export const publicCounts = (counts: DeliveryCounts) => ({
  pending: counts.pending,
  running: counts.running,
  done: counts.done,
  dead: counts.dead,
  total: counts.total,
});

/** A delivery as listed. */
export function publicDelivery(delivery: DeliverySummary) {
  return {
    externalId: delivery.id,
    status: delivery.status,
    endpointId: delivery.endpointId,
    eventId: delivery.eventId,
    type: delivery.event,
    owner: delivery.owner,
    queue: delivery.queue,
    attemptCount: delivery.attempts,
    nextAttemptAt: delivery.nextAttemptAt,
    waitingSince: delivery.waitingSince,
    lastStatus: delivery.lastStatus,
    lastError: delivery.lastError,
    queuedAgainAt: delivery.queuedAgainAt,
    queuedAgainBy: delivery.queuedAgainBy,
    attemptsBefore: delivery.attemptsBefore,
    createdAt: delivery.createdAt,
    updatedAt: delivery.updatedAt,
    completedAt: delivery.completedAt,
  };
}

/** A delivery just written by emit or a test event: pending, no attempt yet. */
export function publicNewDelivery(delivery: Delivery) {
  return publicDelivery({
    id: delivery.id,
    status: delivery.status,
    queue: delivery.queue,
    endpointId: delivery.endpointId,
    eventId: delivery.eventId,
    event: delivery.event,
    owner: delivery.owner,
    attempts: 0,
    nextAttemptAt: null,
    waitingSince: null,
    lastStatus: null,
    lastError: null,
    queuedAgainAt: null,
    queuedAgainBy: null,
    attemptsBefore: 0,
    createdAt: delivery.createdAt,
    updatedAt: delivery.createdAt,
    completedAt: null,
  });
}

/**
 * What an emit answers (REST `POST /events` adds the links; `events:emit --json`): the event's
 * id (null when no endpoint subscribed: nothing was written), its type and owner, the deliveries
 * queued by their ids, whether the `eventId` repeated an earlier event (`duplicate`: the
 * original's id and deliveries, nothing queued), and the subscribed endpoints their filters left
 * out.
 */
export function publicEmitted(result: EmitResult) {
  return {
    externalId: result.event?.id ?? null,
    type: result.type,
    owner: result.owner,
    createdAt: result.event?.createdAt ?? null,
    deliveryCount: result.deliveries.length,
    deliveryIds: result.deliveries.map((delivery) => delivery.id),
    duplicate: result.duplicate,
    filteredOut: result.filteredOut,
  };
}

/** One recorded attempt. */
export const publicAttempt = (attempt: AttemptDetails) => ({
  attempt: attempt.attempt,
  startedAt: attempt.startedAt,
  durationMs: attempt.durationMs,
  status: attempt.status,
  outcome: attempt.outcome,
  error: attempt.error,
  excerpt: attempt.excerpt,
});

/** A delivery shown alone: with its endpoint's url and state and every attempt. */
export function publicDeliveryDetails(delivery: DeliveryDetails) {
  return {
    ...publicDelivery(delivery),
    endpoint:
      delivery.endpoint === null
        ? null
        : {
            url: delivery.endpoint.url,
            enabled: delivery.endpoint.enabled,
            disabledReason: delivery.endpoint.disabledReason,
          },
    attempts: delivery.attemptsMade.map(publicAttempt),
  };
}

/**
 * The webhook API's documented bodies, filters and answers (docs/webhooks-api.md), keyed by
 * `<controller>.<action>` of its routes (api/webhooks-api/routes.ts); the records' schemas are
 * generated from their public shapes (shared/webhooks/public-shapes.ts). The endpoint row is not a model, so these play the part the
 * model schemas play for the generic controller.
 */
import { URL_DESCRIPTION } from '../../shared/webhooks/destinations/forms.ts';
import { PUBLIC_SHAPES, DELIVERY_STATUS_VALUES, type ShapeName } from '../../shared/webhooks/public-shapes.ts';
import { collectionOf, ref, type Json } from './components.ts';

const string = { type: 'string' };
const nullableString = { type: ['string', 'null'] };
const time = { type: 'string', format: 'date-time' };
const nullableTime = { type: ['string', 'null'], format: 'date-time' };
const eventName = { type: 'string', description: 'An event name such as `invoice.paid`.' };
const filterSchema = {
  type: ['object', 'null'],
  description:
    'A subscription filter in MongoDB\'s query style over `{type, timestamp, data}` (docs/webhooks-api.md "Filters"): keys are dot paths, operators `$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte`, `$in`, `$nin`, `$exists`, `$regex` (RE2), `$and`, `$or`, `$not`; at most 4 kB, 8 levels deep, 64 conditions. Refused: 422 `APP_WEBHOOK_FILTER_INVALID`.',
};
const headersMap = {
  type: 'object',
  additionalProperties: { type: 'string' },
  description: 'Receiver-specific headers sent with each delivery; reserved names refused.',
};

/** The JSON Schema of a public shape (shared/webhooks/public-shapes.ts): every field present, so every field required. */
export function shapeSchema(shape: ShapeName, description?: string): Json {
  const properties = Object.fromEntries(
    Object.entries(PUBLIC_SHAPES[shape]).map(([name, field]) => {
      const described = field.description === undefined ? {} : { description: field.description };
      return [name, { ...(field.shape ? ref('schemas', field.shape) : field.schema), ...described }];
    }),
  );
  return { type: 'object', ...(description ? { description } : {}), required: Object.keys(properties), properties };
}

/** A HAL resource of `base` (a component) with more required fields. */
const halWith = (base: string, extra: Record<string, Json>, description: string): Json => ({
  allOf: [ref('schemas', base), { type: 'object', required: Object.keys(extra), properties: extra }],
  description,
});

const hal = (shape: ShapeName, description: string): Json => ({
  allOf: [ref('schemas', 'HalResource'), shapeSchema(shape)],
  description,
});

const eventTypeFields = {
  description: nullableString,
  schema: {
    type: ['object', 'boolean', 'null'],
    description: "JSON Schema (draft 2020-12) of the events' `data`; null: any data.",
  },
  examples: { type: 'array', items: {}, maxItems: 20 },
  deprecated: { type: 'boolean' },
};

/** The schemas of the webhook API's records and answers, by component name. */
export const WEBHOOK_SCHEMAS: Json = {
  EventType: {
    allOf: [ref('schemas', 'HalResource')],
    type: 'object',
    description: 'A type of the event catalog.',
    required: ['name', 'description', 'schema', 'examples', 'deprecated', 'createdAt', 'updatedAt'],
    properties: { name: eventName, ...eventTypeFields, createdAt: time, updatedAt: time },
  },
  EventTypeCreate: {
    type: 'object',
    required: ['name'],
    additionalProperties: false,
    properties: { name: eventName, ...eventTypeFields },
  },
  EventTypeUpdate: { type: 'object', minProperties: 1, additionalProperties: false, properties: eventTypeFields },
  Webhook: hal('Webhook', 'A webhook endpoint (`externalId` `ep_…`), as listed and changed. Never a secret.'),
  WebhookDetails: halWith(
    'Webhook',
    { secrets: { type: 'array', items: ref('schemas', 'WebhookSecret') } },
    'A webhook endpoint shown alone: with the dates of the secrets that still sign.',
  ),
  WebhookCreated: halWith(
    'Webhook',
    {
      secret: {
        type: 'string',
        pattern: '^(whsec_|whpk_)',
        description:
          'The signing secret (`whsec_…`), shown this once; for an `ed25519` endpoint the public key (`whpk_…`) receivers verify with.',
      },
    },
    'The answer that made the endpoint: with its signing secret.',
  ),
  WebhookRotated: halWith(
    'WebhookDetails',
    {
      secret: {
        type: 'string',
        pattern: '^(whsec_|whpk_)',
        description:
          'The new signing secret (`whsec_…`), shown this once; for an `ed25519` endpoint the new public key (`whpk_…`).',
      },
      graceEndsAt: {
        type: ['string', 'null'],
        format: 'date-time',
        description: 'Until when the previous secret still signs (null: it stopped at once).',
      },
    },
    'The answer of a rotation: the endpoint as shown alone (the dates of the secrets that still sign, the previous one among them during its grace) with its new secret.',
  ),
  WebhookSecret: shapeSchema('WebhookSecret', 'A secret that still signs (its dates, never its value).'),
  WebhookCreate: {
    type: 'object',
    required: ['url', 'events'],
    additionalProperties: false,
    properties: {
      url: { type: 'string', format: 'uri', description: URL_DESCRIPTION },
      events: { type: 'array', minItems: 1, items: string },
      filter: filterSchema,
      owner: string,
      description: string,
      headers: headersMap,
      rateLimit: {
        type: ['integer', 'null'],
        minimum: 1,
        maximum: 10000,
        description: 'Most deliveries per second to it, across every worker; above it they wait.',
      },
      ordering: {
        type: ['string', 'null'],
        enum: ['none', 'fifo', null],
        default: 'none',
        description:
          '`fifo`: one delivery at a time, in emit order (the next waits until the previous is done or dead).',
      },
      signing: {
        type: 'string',
        enum: ['hmac-sha256', 'ed25519'],
        default: 'hmac-sha256',
        description:
          '`ed25519`: deliveries carry `v1a,` Ed25519 signatures and the answer gives the public key `whpk_…` instead of a secret.',
      },
    },
  },
  WebhookUpdate: {
    type: 'object',
    minProperties: 1,
    additionalProperties: false,
    properties: {
      url: { type: 'string', format: 'uri', description: URL_DESCRIPTION },
      events: { type: 'array', minItems: 1, items: string },
      filter: { ...filterSchema, description: `${filterSchema.description} null removes it.` },
      description: nullableString,
      headers: { ...headersMap, type: ['object', 'null'] },
      enabled: { type: 'boolean' },
      disabledReason: string,
      owner: nullableString,
      rateLimit: { type: ['integer', 'null'], minimum: 1, maximum: 10000 },
      ordering: { type: ['string', 'null'], enum: ['none', 'fifo', null] },
    },
  },
  WebhookRotate: {
    type: 'object',
    additionalProperties: false,
    properties: { grace: { type: 'integer', minimum: 0, description: 'Milliseconds the old secret keeps signing.' } },
  },
  WebhookTest: {
    type: 'object',
    additionalProperties: false,
    properties: { type: { ...eventName, default: 'webhook.test' }, data: { description: 'Payload (default `{}`).' } },
  },
  WebhookRecover: {
    type: 'object',
    required: ['since'],
    additionalProperties: false,
    properties: { since: time, until: time },
  },
  WebhookRecovered: {
    type: 'object',
    description:
      'What a recover answers: how many dead deliveries are sent again, and whether more are left past this call; no `externalId`, as it is no record.',
    required: ['_links', 'endpointId', 'recovered', 'more', 'deliveryIds'],
    additionalProperties: false,
    properties: {
      _links: ref('schemas', 'HalLinks'),
      endpointId: string,
      recovered: { type: 'integer', minimum: 0 },
      more: { type: 'boolean' },
      deliveryIds: { type: 'array', items: string },
    },
  },
  DeliveryCounts: shapeSchema('DeliveryCounts', 'Deliveries by state.'),
  Event: hal(
    'Event',
    'An emitted event (`externalId` `evt_…`) with its retained payload and delivery counts by state.',
  ),
  EventCreate: {
    type: 'object',
    required: ['type'],
    additionalProperties: false,
    properties: {
      type: eventName,
      data: {},
      owner: string,
      eventId: {
        type: 'string',
        minLength: 1,
        maxLength: 64,
        description:
          'Your own id of the event, unique per owner: repeated within `webhooks.dedupeWindow`, the original event is answered (200, `duplicate: true`) and nothing is queued.',
      },
    },
  },
  EventEmitted: {
    allOf: [ref('schemas', 'HalResource')],
    type: 'object',
    description:
      'The emit answer: `externalId` null when no endpoint matched (nothing written); a `delivery` link to each delivery.',
    required: ['externalId', 'type', 'owner', 'createdAt', 'deliveryCount', 'deliveryIds', 'duplicate', 'filteredOut'],
    properties: {
      externalId: nullableString,
      type: eventName,
      owner: nullableString,
      createdAt: nullableTime,
      deliveryCount: { type: 'integer', minimum: 0 },
      deliveryIds: { type: 'array', items: string },
      duplicate: {
        type: 'boolean',
        description: 'The `eventId` repeated an earlier event: this is the original, nothing was queued (status 200).',
      },
      filteredOut: {
        type: 'integer',
        minimum: 0,
        description:
          'Endpoints subscribed to the type that their filters left out (when it is every one, the event is still written, without deliveries).',
      },
    },
  },
  FilterTest: {
    type: 'object',
    required: ['filter'],
    additionalProperties: false,
    description: 'A filter and the event to try it on: `event` given whole, or `eventId`, a retained event in reach.',
    properties: {
      filter: filterSchema,
      event: {
        type: 'object',
        required: ['type'],
        additionalProperties: false,
        description:
          'The event as its receiver would see it, refused exactly when an emit of it would be, by the same code: `type` and `data` as `POST /events` checks them (`APP_WEBHOOK_EVENT_INVALID`, `APP_WEBHOOK_PAYLOAD_INVALID`, 413 `APP_WEBHOOK_PAYLOAD_TOO_LARGE`, `APP_WEBHOOK_EVENT_DATA_INVALID`, `APP_WEBHOOK_EVENT_TYPE_UNKNOWN`), `timestamp` a time an emit can stamp (else `APP_WEBHOOK_EVENT_INVALID`, `data.field` `timestamp`).',
        properties: {
          type: eventName,
          timestamp: {
            ...time,
            description:
              'ISO 8601 (`2026-01-31T12:00:00Z`, an offset, or a date), years 0001 to 9999; the filter sees it as a delivery body writes it, UTC with milliseconds (`2026-01-31T12:00:00.000Z`). Now when absent.',
          },
          data: { description: "The payload (default `{}`), checked against the type's schema in the catalog." },
        },
      },
      eventId: { ...string, description: "A retained event (`evt_…`) in the caller's reach." },
    },
  },
  FilterTestResult: {
    type: 'object',
    description:
      'What a try answers, as GraphQL (`WebhookFilterTest`) and `webhooks:filter-test --json` do; no `externalId`, as nothing is saved. Its one link is `collection`.',
    required: ['_links', 'matches', 'failed'],
    additionalProperties: false,
    properties: {
      _links: ref('schemas', 'HalLinks'),
      matches: { type: 'boolean', description: 'Whether the filter lets the event through.' },
      failed: {
        type: ['object', 'null'],
        description: 'The condition that failed first; null when the event matches.',
        required: ['path', 'operator', 'at'],
        properties: {
          path: { ...nullableString, description: "The event field it tests; null for `$or` and a filter's `$not`." },
          operator: string,
          at: { ...string, description: 'Where it is in the filter, as a dot path (`$and.1.data.amount.$gt`).' },
        },
      },
    },
  },
  Delivery: hal('Delivery', 'A delivery (`externalId` `msg_…`) as listed, and as a test event or a retry answers it.'),
  DeliveryDetails: halWith(
    'Delivery',
    {
      endpoint: {
        type: ['object', 'null'],
        required: ['url', 'enabled', 'disabledReason'],
        properties: { url: string, enabled: { type: 'boolean' }, disabledReason: nullableString },
      },
      attempts: { type: 'array', items: ref('schemas', 'Attempt') },
    },
    'A delivery shown alone: its endpoint and every attempt.',
  ),
  Attempt: shapeSchema('Attempt', 'One recorded attempt of a delivery.'),
};

const query = (name: string, description: string, schema: Json = string): Json => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
});
const OWNER = [
  query('owner', "Only this tenant's records (admins; others may name only their own)."),
  query('without_owner', 'Only records without an owner (admins).', { type: 'string', enum: ['true'] }),
];
const TIME = [
  query('since', 'Created at or after (ISO 8601).', time),
  query('until', 'Created before (ISO 8601).', time),
];
const STATUS: Json = {
  name: 'status',
  in: 'query',
  required: false,
  style: 'form',
  explode: false,
  description: 'Delivery states, comma-separated (`dead`, `pending,running`).',
  schema: { type: 'array', items: { type: 'string', enum: [...DELIVERY_STATUS_VALUES] } },
};
const TYPE = query('type', 'Event name.');

/** What a webhook API action takes and answers. */
export interface WebhookOperation {
  summary: string;
  status: 200 | 201 | 202 | 204;
  /** Component name of the answer (absent for 204). */
  answer?: Json;
  body?: string;
  /** Descriptions of the query parameters the action declares (api/webhooks-api/controllers/), by name. */
  query?: Json[];
  /** A created resource with no address of its own (no show route): its 201 carries no `Location`. */
  unaddressed?: true;
}

export const WEBHOOK_OPERATIONS: Readonly<Record<string, WebhookOperation>> = {
  'webhooks.index': {
    summary: 'List webhook endpoints',
    status: 200,
    answer: collectionOf('webhooks', 'Webhook'),
    query: [
      ...OWNER,
      query('enabled', 'Enabled or disabled endpoints.', { type: 'string', enum: ['true', 'false'] }),
      query('events', 'Endpoints receiving one of these comma-separated event names.'),
    ],
  },
  'webhooks.create': {
    summary: 'Register a webhook endpoint (the answer carries its secret, this once)',
    status: 201,
    answer: ref('schemas', 'WebhookCreated'),
    body: 'WebhookCreate',
  },
  'webhooks.show': {
    summary: 'Show a webhook endpoint with the dates of its signing secrets',
    status: 200,
    answer: ref('schemas', 'WebhookDetails'),
    query: [
      query('reveal', '`headers` shows the values of its headers (members and admins; a viewer is refused).', {
        type: 'string',
        enum: ['headers'],
      }),
    ],
  },
  'webhooks.update': {
    summary: 'Change a webhook endpoint',
    status: 200,
    answer: ref('schemas', 'Webhook'),
    body: 'WebhookUpdate',
  },
  'webhooks.destroy': { summary: 'Remove a webhook endpoint with its secrets and deliveries', status: 204 },
  'webhooks.rotate': {
    summary: 'Rotate the signing secret (the answer carries the new secret, this once)',
    status: 200,
    answer: ref('schemas', 'WebhookRotated'),
    body: 'WebhookRotate',
  },
  'webhooks.test': {
    summary: 'Send a test event to this endpoint alone',
    status: 202,
    answer: ref('schemas', 'Delivery'),
    body: 'WebhookTest',
  },
  'webhooks.recover': {
    summary: "Send the endpoint's dead deliveries of a time range again",
    status: 202,
    answer: ref('schemas', 'WebhookRecovered'),
    body: 'WebhookRecover',
  },
  'webhooks.filterTest': {
    summary: 'Try a subscription filter on an event (changes nothing)',
    status: 200,
    answer: ref('schemas', 'FilterTestResult'),
    body: 'FilterTest',
  },
  'webhooks.deliveries': {
    summary: "List the endpoint's deliveries",
    status: 200,
    answer: collectionOf('deliveries', 'Delivery'),
    query: [STATUS, TYPE, ...TIME],
  },
  'events.index': {
    summary: 'List events, newest first',
    status: 200,
    answer: collectionOf('events', 'Event'),
    query: [...OWNER, TYPE, ...TIME],
  },
  'events.create': {
    summary: 'Emit an event to every subscribed endpoint',
    status: 202,
    answer: ref('schemas', 'EventEmitted'),
    body: 'EventCreate',
  },
  'events.show': { summary: 'Show an event', status: 200, answer: ref('schemas', 'Event') },
  'deliveries.index': {
    summary: 'List deliveries, newest first',
    status: 200,
    answer: collectionOf('deliveries', 'Delivery'),
    query: [STATUS, query('endpoint', 'Endpoint id.'), query('event', 'Event id.'), TYPE, ...OWNER, ...TIME],
  },
  'deliveries.show': {
    summary: 'Show a delivery with every attempt',
    status: 200,
    answer: ref('schemas', 'DeliveryDetails'),
  },
  'deliveries.retry': { summary: 'Send a dead delivery again', status: 202, answer: ref('schemas', 'Delivery') },
  'deliveries.resend': {
    summary: 'Send a done or dead delivery again with the same webhook-id (409 while it is in flight)',
    status: 202,
    answer: ref('schemas', 'Delivery'),
  },
  'eventTypes.index': {
    summary: 'List the event-type catalog in name order',
    status: 200,
    answer: collectionOf('eventTypes', 'EventType'),
    query: [query('deprecated', '`false` leaves deprecated types out.', { type: 'string', enum: ['true', 'false'] })],
  },
  'eventTypes.create': {
    summary: 'Add an event type to the catalog (admins)',
    status: 201,
    answer: ref('schemas', 'EventType'),
    body: 'EventTypeCreate',
  },
  'eventTypes.show': { summary: 'Show an event type', status: 200, answer: ref('schemas', 'EventType') },
  'eventTypes.update': {
    summary: 'Change an event type (admins; `schema: null` removes the schema)',
    status: 200,
    answer: ref('schemas', 'EventType'),
    body: 'EventTypeUpdate',
  },
};

/**
 * The webhook API's documented bodies, filters and answers (docs/webhooks-api.md;
 * api/webhooks-api/present.ts), keyed by `<controller>.<action>` of its routes
 * (api/webhooks-api/routes.ts). The endpoint row is not a model, so these play the part the
 * model schemas play for the generic controller.
 */
import { ref, type Json } from './components.ts';

const string = { type: 'string' };
const nullableString = { type: ['string', 'null'] };
const time = { type: 'string', format: 'date-time' };
const nullableTime = { type: ['string', 'null'], format: 'date-time' };
const eventName = { type: 'string', description: 'An event name such as `invoice.paid`.' };
const headersMap = { type: 'object', additionalProperties: { type: 'string' }, description: 'Receiver-specific headers sent with each delivery; reserved names refused.' };
const deliveryStatus = { type: 'string', enum: ['pending', 'running', 'done', 'dead'] };

/** The schemas of the webhook API's records and answers, by component name. */
export const WEBHOOK_SCHEMAS: Json = {
  Webhook: {
    allOf: [ref('schemas', 'HalResource')],
    type: 'object',
    description: 'A webhook endpoint (`externalId` `ep_…`). `secret` only in the answer that made it (create, rotate); `secrets` (dates only) when shown alone.',
    properties: {
      externalId: string,
      url: { type: 'string', format: 'uri' },
      events: { type: 'array', items: { type: 'string', description: 'An exact event name, a family `<prefix>.*`, or `*`.' } },
      owner: nullableString,
      description: nullableString,
      headers: headersMap,
      enabled: { type: 'boolean' },
      disabledAt: nullableTime,
      disabledReason: nullableString,
      createdAt: time,
      updatedAt: time,
      secrets: { type: 'array', items: { type: 'object', properties: { createdAt: time, expiresAt: nullableTime } } },
      secret: { type: 'string', pattern: '^whsec_', description: 'The signing secret; shown once.' },
      graceEndsAt: nullableTime,
    },
  },
  WebhookCreate: {
    type: 'object',
    required: ['url', 'events'],
    properties: { url: { type: 'string', format: 'uri' }, events: { type: 'array', minItems: 1, items: string }, owner: string, description: string, headers: headersMap },
  },
  WebhookUpdate: {
    type: 'object',
    properties: {
      url: { type: 'string', format: 'uri' }, events: { type: 'array', minItems: 1, items: string }, description: nullableString, headers: headersMap,
      enabled: { type: 'boolean' }, disabledReason: nullableString, owner: nullableString,
    },
  },
  WebhookRotate: { type: 'object', properties: { grace: { type: 'integer', minimum: 0, description: 'Milliseconds the old secret keeps signing.' } } },
  WebhookTest: { type: 'object', properties: { type: { ...eventName, default: 'webhook.test' }, data: { description: 'Payload (default `{}`).' } } },
  WebhookRecover: { type: 'object', required: ['since'], properties: { since: time, until: time } },
  WebhookRecovered: {
    allOf: [ref('schemas', 'HalResource')],
    type: 'object',
    properties: { endpointId: string, recovered: { type: 'integer', minimum: 0 }, more: { type: 'boolean' }, deliveryIds: { type: 'array', items: string } },
  },
  Event: {
    allOf: [ref('schemas', 'HalResource')],
    type: 'object',
    description: 'An emitted event (`externalId` `evt_…`) with its retained payload and delivery counts by state.',
    properties: { externalId: string, type: eventName, owner: nullableString, data: {}, createdAt: time, deliveries: { type: 'object', additionalProperties: { type: 'integer' } } },
  },
  EventCreate: { type: 'object', required: ['type'], properties: { type: eventName, data: {}, owner: string } },
  EventEmitted: {
    allOf: [ref('schemas', 'HalResource')],
    type: 'object',
    description: 'The emit answer: `externalId` null when no endpoint matched (nothing written); a `delivery` link to each delivery.',
    properties: { type: eventName, owner: nullableString, createdAt: nullableTime, deliveryCount: { type: 'integer', minimum: 0 }, deliveryIds: { type: 'array', items: string } },
  },
  Delivery: {
    allOf: [ref('schemas', 'HalResource')],
    type: 'object',
    description: 'A delivery (`externalId` `msg_…`); shown alone it carries its `endpoint` and every attempt.',
    properties: {
      externalId: string, status: deliveryStatus, endpointId: string, eventId: nullableString, type: eventName, owner: nullableString, queue: string,
      attemptCount: { type: 'integer' }, nextAttemptAt: nullableTime, lastStatus: { type: ['integer', 'null'] }, lastError: nullableString,
      createdAt: time, updatedAt: nullableTime, completedAt: nullableTime,
      endpoint: { type: ['object', 'null'], properties: { url: string, enabled: { type: 'boolean' }, disabledReason: nullableString } },
      attempts: {
        type: 'array',
        items: {
          type: 'object',
          properties: { attempt: { type: 'integer' }, startedAt: time, durationMs: { type: ['number', 'null'] }, status: { type: ['integer', 'null'] }, outcome: nullableString, error: nullableString, excerpt: nullableString },
        },
      },
    },
  },
};

/** A HAL collection of `item` under `_embedded.<type>`. */
export const collectionOf = (type: string, item: string): Json => ({
  allOf: [
    ref('schemas', 'HalCollection'),
    { type: 'object', properties: { _embedded: { type: 'object', required: [type], properties: { [type]: { type: 'array', items: ref('schemas', item) } } } } },
  ],
});

const query = (name: string, description: string, schema: Json = string): Json => ({ name, in: 'query', required: false, description, schema });
const OWNER = [
  query('owner', 'Only this tenant\'s records (admins; others may name only their own).'),
  query('without_owner', 'Only records without an owner (admins).', { type: 'string', enum: ['true'] }),
];
const TIME = [query('since', 'Created at or after (ISO 8601).', time), query('until', 'Created before (ISO 8601).', time)];
const STATUS = query('status', 'Comma-separated delivery states.', { type: 'string', examples: ['dead', 'pending,running'] });
const TYPE = query('type', 'Event name.');

/** What a webhook API action takes and answers. */
export interface WebhookOperation {
  summary: string;
  status: 200 | 201 | 202 | 204;
  /** Component name of the answer (absent for 204). */
  answer?: Json;
  body?: string;
  query?: Json[];
}

export const WEBHOOK_OPERATIONS: Readonly<Record<string, WebhookOperation>> = {
  'webhooks.index': { summary: 'List webhook endpoints', status: 200, answer: collectionOf('webhooks', 'Webhook'), query: [...OWNER, query('enabled', 'Enabled or disabled endpoints.', { type: 'string', enum: ['true', 'false'] }), query('events', 'Endpoints receiving one of these comma-separated event names.')] },
  'webhooks.create': { summary: 'Register a webhook endpoint (the answer carries its secret, this once)', status: 201, answer: ref('schemas', 'Webhook'), body: 'WebhookCreate' },
  'webhooks.show': { summary: 'Show a webhook endpoint', status: 200, answer: ref('schemas', 'Webhook') },
  'webhooks.update': { summary: 'Change a webhook endpoint', status: 200, answer: ref('schemas', 'Webhook'), body: 'WebhookUpdate' },
  'webhooks.destroy': { summary: 'Remove a webhook endpoint with its secrets and deliveries', status: 204 },
  'webhooks.rotate': { summary: 'Rotate the signing secret (the answer carries the new secret, this once)', status: 200, answer: ref('schemas', 'Webhook'), body: 'WebhookRotate' },
  'webhooks.test': { summary: 'Send a test event to this endpoint alone', status: 202, answer: ref('schemas', 'Delivery'), body: 'WebhookTest' },
  'webhooks.recover': { summary: 'Send the endpoint\'s dead deliveries of a time range again', status: 202, answer: ref('schemas', 'WebhookRecovered'), body: 'WebhookRecover' },
  'webhooks.deliveries': { summary: 'List the endpoint\'s deliveries', status: 200, answer: collectionOf('deliveries', 'Delivery'), query: [STATUS, TYPE, ...TIME] },
  'events.index': { summary: 'List events, newest first', status: 200, answer: collectionOf('events', 'Event'), query: [...OWNER, TYPE, ...TIME] },
  'events.create': { summary: 'Emit an event to every subscribed endpoint', status: 202, answer: ref('schemas', 'EventEmitted'), body: 'EventCreate' },
  'events.show': { summary: 'Show an event', status: 200, answer: ref('schemas', 'Event') },
  'deliveries.index': { summary: 'List deliveries, newest first', status: 200, answer: collectionOf('deliveries', 'Delivery'), query: [STATUS, query('endpoint', 'Endpoint id.'), query('event', 'Event id.'), TYPE, ...OWNER, ...TIME] },
  'deliveries.show': { summary: 'Show a delivery with every attempt', status: 200, answer: ref('schemas', 'Delivery') },
  'deliveries.retry': { summary: 'Send a dead delivery again', status: 202, answer: ref('schemas', 'Delivery') },
};

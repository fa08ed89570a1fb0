/**
 * The GraphQL types of webhook endpoints, events and deliveries: the same records, filters and
 * operations as the REST API (docs/webhooks-api.md) and the CLI, the same names where GraphQL
 * allows (`externalId` is the record's own id, `ep_…`, `evt_…`, `msg_…`). Lists are pages
 * (`page`, `perPage`: the REST defaults and cap, `api.perPage` and `api.maxPerPage`). The record
 * types are generated from their public shapes (shape-types.ts).
 */
import { objectTypeSdl } from './shape-types.ts';
import { pageTypeSdl } from './page-type.ts';
import { URL_DESCRIPTION } from '../../../shared/webhooks/destinations/forms.ts';

export const WEBHOOK_TYPES = /* GraphQL */ `
  ${objectTypeSdl('Webhook', 'A receiver URL subscribed to events (a row of the endpoint table). Never carries a secret.')}

  ${pageTypeSdl('WebhookEndpointPage', 'WebhookEndpoint')}

  ${objectTypeSdl('DeliveryCounts', 'Deliveries by state.')}

  ${objectTypeSdl('Event', 'An emitted event as retained: type, owner, payload and its deliveries by state.')}

  ${pageTypeSdl('WebhookEventPage', 'WebhookEvent', { estimated: true })}

  enum WebhookDeliveryStatus {
    "Queued, or waiting for a retry at nextAttemptAt; for an endpoint that answers quickly, also while its attempt runs, for the first half second."
    PENDING
    RUNNING
    "Delivered (the receiver answered 2xx)."
    DONE
    "Attempts ran out, or the receiver can never be reached; see lastError."
    DEAD
  }

  ${objectTypeSdl('Attempt', 'One recorded attempt of a delivery.')}

  ${objectTypeSdl('Delivery', 'One event to one endpoint: a job in the delivery queue.')}

  ${pageTypeSdl('WebhookDeliveryPage', 'WebhookDelivery', { estimated: true })}

  input WebhookEndpointFilter {
    "Only this owner's endpoints (a member's own owner in any case)."
    owner: String
    "Only the endpoints without owner."
    withoutOwner: Boolean
    enabled: Boolean
    "Only endpoints receiving at least one of these event names."
    events: [String!]
  }

  input WebhookEventFilter {
    owner: String
    withoutOwner: Boolean
    "Exact event type."
    type: String
    "Inclusive."
    since: DateTime
    "Exclusive."
    until: DateTime
  }

  input WebhookDeliveryFilter {
    status: [WebhookDeliveryStatus!]
    "ep_…"
    endpoint: ID
    "evt_…"
    event: ID
    type: String
    owner: String
    withoutOwner: Boolean
    since: DateTime
    until: DateTime
  }

  type Query {
    webhookEndpoints(filter: WebhookEndpointFilter, page: Int, perPage: Int): WebhookEndpointPage!
    webhookEndpoint(id: ID!): WebhookEndpoint
    "Newest first."
    webhookEvents(filter: WebhookEventFilter, page: Int, perPage: Int): WebhookEventPage!
    webhookEvent(id: ID!): WebhookEvent
    "Newest first."
    webhookDeliveries(filter: WebhookDeliveryFilter, page: Int, perPage: Int): WebhookDeliveryPage!
    webhookDelivery(id: ID!): WebhookDelivery
    "Tries a subscription filter on an event given whole ({type, timestamp?, data?}: refused exactly when an emit of it would be, by the emit's code) or on a retained event (eventId); changes nothing."
    testWebhookFilter(filter: JSON, event: JSON, eventId: ID): WebhookFilterTest!
  }

  input RegisterWebhookEndpointInput {
    ${JSON.stringify(URL_DESCRIPTION)}
    url: String!
    events: [String!]!
    "A subscription filter over {type, timestamp, data} (MongoDB's query style); none by default."
    filter: JSON
    "An admin names any owner; a member's endpoints are its own owner's."
    owner: String
    description: String
    headers: JSON
    "hmac-sha256 (default; the answer's secret is whsec_…) or ed25519 (v1a, signatures; the answer's secret is the public key whpk_…)."
    signing: String
    "Most deliveries per second to it, across every worker (above it they wait); none by default."
    rateLimit: Int
    "fifo: one delivery at a time, in emit order; none (default): in parallel."
    ordering: String
  }

  input UpdateWebhookEndpointInput {
    ${JSON.stringify(URL_DESCRIPTION)}
    url: String
    events: [String!]
    "Replaces the subscription filter; null removes it."
    filter: JSON
    "null removes the owner (admins)."
    owner: String
    "null removes the description."
    description: String
    "Replaces every header; null removes them."
    headers: JSON
    "false disables, true enables again."
    enabled: Boolean
    disabledReason: String
    "Deliveries per second at most; null removes the limit."
    rateLimit: Int
    "fifo or none."
    ordering: String
  }

  input EmitWebhookEventInput {
    type: String!
    data: JSON
    "An admin names any owner, or none; a member emits as its own owner."
    owner: String
    "Your own id of the event (1 to 64 characters, unique per owner): repeated within webhooks.dedupeWindow, the original event is answered and nothing is queued."
    eventId: String
  }

  type RegisteredWebhookEndpoint {
    endpoint: WebhookEndpoint!
    "whsec_…, shown this once."
    secret: String!
  }

  type RotatedWebhookSecret {
    endpoint: WebhookEndpoint!
    "The new secret, shown this once."
    secret: String!
    "Until when the previous secret still signs (null: it stopped at once)."
    graceEndsAt: DateTime
  }

  type EmittedWebhookEvent {
    "The event written, null when no endpoint matched (nothing is written then)."
    event: WebhookEvent
    type: String!
    owner: String
    deliveries: [WebhookDelivery!]!
    "The eventId repeated an earlier event: event and deliveries are the original's, nothing was queued."
    duplicate: Boolean!
    "Endpoints subscribed to the type that their filters left out."
    filteredOut: Int!
  }

  "The condition of a filter that failed first."
  type WebhookFilterMiss {
    "The event field it tests; null for $or and a filter's $not."
    path: String
    operator: String!
    "Where it is in the filter, as a dot path ($and.1.data.amount.$gt)."
    at: String!
  }

  "What a try answers, as REST's POST /webhooks/filter-test and app webhooks:filter-test --json do."
  type WebhookFilterTest {
    "Whether the filter lets the event through."
    matches: Boolean!
    "Null when the event matches."
    failed: WebhookFilterMiss
  }

  "A retained event an endpoint's filter decides on."
  type WebhookRecentEvent {
    externalId: ID!
    type: String!
    createdAt: DateTime!
  }

  type RecoveredWebhookDeliveries {
    endpointId: ID!
    recovered: Int!
    "More dead deliveries match: call again to queue them."
    more: Boolean!
    deliveryIds: [ID!]!
  }

  type Mutation {
    registerWebhookEndpoint(input: RegisterWebhookEndpointInput!): RegisteredWebhookEndpoint!
    updateWebhookEndpoint(id: ID!, input: UpdateWebhookEndpointInput!): WebhookEndpoint!
    "Removes the endpoint with its secrets, deliveries and attempts; answers its id."
    removeWebhookEndpoint(id: ID!): ID!
    "grace: milliseconds during which the old secret still signs."
    rotateWebhookSecret(id: ID!, grace: Float): RotatedWebhookSecret!
    "Sends one event (default webhook.test, data {}) to this endpoint alone, through the queue."
    sendTestWebhookEvent(id: ID!, type: String, data: JSON): WebhookDelivery!
    emitWebhookEvent(input: EmitWebhookEventInput!): EmittedWebhookEvent!
    "Sends a dead delivery again with the same webhook-id."
    retryWebhookDelivery(id: ID!): WebhookDelivery!
    "A done or dead delivery sent again with the same webhook-id (APP_WEBHOOK_DELIVERY_IN_FLIGHT while it is pending or running)."
    resendWebhookDelivery(id: ID!): WebhookDelivery!
    "Sends again every dead delivery of the endpoint created in [since, until)."
    recoverWebhookDeliveries(id: ID!, since: DateTime!, until: DateTime): RecoveredWebhookDeliveries!
  }
`;

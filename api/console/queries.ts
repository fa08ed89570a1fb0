/**
 * The GraphQL queries of the console's pages: each page's data comes from the
 * service's own schema as the signed-in principal (ctx.render), so the page shows exactly what
 * `/_app/gql` would answer that caller, and its page object carries the query to run again.
 */
import { gql } from '../graphql/gql.ts';

const HEALTH =
  'health { successRate24h attempts24h succeeded24h lastFailureAt lastFailure lastFailureDeliveryId pending running dead }';
/** The charts' series (api/console/charts.ts): every bucket and the window's totals. */
const SERIES =
  'window stepSeconds from until buckets { start done failed dead attempts p50Ms p95Ms } totals { done failed dead attempts p50Ms p95Ms }';
const DELIVERY_ROW =
  'externalId status type eventId endpointId owner attemptCount nextAttemptAt waitingSince lastStatus lastError queuedAgainAt queuedAgainBy attemptsBefore createdAt completedAt';

export const OVERVIEW = gql`
  query Overview($owner: String, $withoutOwner: Boolean, $page: Int, $window: WebhookSeriesWindow) {
    webhookQueue(owner: $owner, withoutOwner: $withoutOwner) { depth pending running dead oldestPendingAgeSeconds oldestPendingAt }
    webhookDeliverySeries(window: $window, owner: $owner, withoutOwner: $withoutOwner) { ${SERIES} }
    webhookEndpoints(filter: { owner: $owner, withoutOwner: $withoutOwner }, page: $page, perPage: 50) {
      total page pages perPage deepestPage
      nodes { externalId url owner description enabled disabledReason events ${HEALTH} }
    }
  }`;

export const ENDPOINT = gql`
  query Endpoint($id: ID!, $status: [WebhookDeliveryStatus!], $type: String, $since: DateTime, $until: DateTime, $page: Int, $window: WebhookSeriesWindow) {
    webhookEndpoint(id: $id) {
      externalId url events filter owner description headers enabled disabledAt disabledReason rateLimit ordering signing createdAt updatedAt
      recentEvents(limit: 10) { externalId type createdAt }
      ${HEALTH}
      deliverySeries(window: $window) { ${SERIES} }
    }
    webhookDeliveries(filter: { endpoint: $id, status: $status, type: $type, since: $since, until: $until }, page: $page, perPage: 20) {
      total totalEstimated page pages perPage deepestPage
      nodes { ${DELIVERY_ROW} }
    }
  }`;

/** The endpoint alone (its forms' pages: secret, rotate, remove). */
export const ENDPOINT_ONLY = gql`
  query EndpointOnly($id: ID!) {
    webhookEndpoint(id: $id) { externalId url owner enabled signing ${HEALTH} }
  }`;

export const DELIVERY = gql`
  query Delivery($id: ID!) {
    webhookDelivery(id: $id) {
      ${DELIVERY_ROW} queue updatedAt
      endpoint { externalId url enabled disabledReason }
      event { externalId type owner data createdAt }
      attempts { attempt startedAt durationMs status outcome error excerpt }
    }
  }`;

export const DEAD_LETTERS = gql`
  query DeadLetters($endpoint: ID, $owner: String, $withoutOwner: Boolean, $since: DateTime, $until: DateTime, $page: Int) {
    webhookDeliveries(filter: { status: [DEAD], endpoint: $endpoint, owner: $owner, withoutOwner: $withoutOwner, since: $since, until: $until }, page: $page, perPage: 25) {
      total totalEstimated page pages perPage deepestPage
      nodes { ${DELIVERY_ROW} endpoint { url enabled } }
    }
    webhookEndpoints(filter: { owner: $owner, withoutOwner: $withoutOwner }, perPage: 100) { nodes { externalId url owner } }
  }`;

export const FIND_EVENT = gql`
  query FindEvent($id: ID!) {
    webhookEvent(id: $id) { externalId type owner data createdAt filteredOut deliveryCounts { pending running done dead total } }
    webhookDeliveries(filter: { event: $id }, perPage: 100) { total totalEstimated nodes { ${DELIVERY_ROW} endpoint { url } } }
  }`;

export const FIND_TYPE = gql`
  query FindType($type: String!, $page: Int) {
    webhookEvents(filter: { type: $type }, page: $page, perPage: 25) {
      total totalEstimated page pages perPage deepestPage
      nodes { externalId type owner createdAt deliveryCounts { pending running done dead total } }
    }
  }`;

/** The endpoints a form may pick from (dead letters, emit). */
export const ENDPOINT_CHOICES = gql`
  query EndpointChoices($owner: String, $withoutOwner: Boolean) {
    webhookEndpoints(filter: { owner: $owner, withoutOwner: $withoutOwner }, perPage: 100) { nodes { externalId url owner } }
  }`;

/** The catalog, a page at a time (deprecated types too: the list marks them). */
export const EVENT_TYPES = gql`
  query EventTypes($page: Int) {
    eventTypes(page: $page, perPage: 50) {
      total page pages perPage deepestPage
      nodes { name description deprecated }
    }
  }`;

export const EVENT_TYPE = gql`
  query EventType($name: String!) {
    eventType(name: $name) { name description schema examples deprecated createdAt updatedAt }
  }`;

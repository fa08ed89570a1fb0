/**
 * Webhook deliveries, one service for every face: list and show through a tenant scope, retry,
 * resend and bulk replay for an actor (the CLI passes `OPERATOR`), and the per-state counts
 * operators see.
 */
export { listDeliveries, type DeliveryQuery, type ListedDelivery } from './list.ts';
export { MAX_LIST_LIMIT } from './page-size.ts';
export { showDelivery } from './show.ts';
export { retryDelivery, resendDelivery } from './retry.ts';
export { recoverDeliveries, MAX_RECOVER, type RecoverResult } from './recover.ts';
export { previewReplay, replayDeadDeliveries, type ReplayPreview, type ReplaySelection } from './replay.ts';
export { countListedDeliveries, type DeliveryFilters } from './counts.ts';
export { endpointHealth, queueFigures, HEALTH_WINDOW_MS, type EndpointHealth, type QueueFigures } from './health.ts';
export {
  DELIVERY_STATUSES,
  deliveryNotFound,
  type AttemptDetails,
  type DeliveryCounts,
  type DeliveryDetails,
  type DeliveryStatus,
  type DeliverySummary,
} from './record.ts';

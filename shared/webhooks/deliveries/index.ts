/**
 * Webhook deliveries, one service for every face: list, show, retry and bulk replay through a
 * tenant scope (the CLI passes `ALL_TENANTS`), and the per-state counts operators see.
 */
export { listDeliveries, type DeliveryQuery, type ListedDelivery } from './list.ts';
export { MAX_LIST_LIMIT } from './page-size.ts';
export { showDelivery } from './show.ts';
export { retryDelivery, resendDelivery } from './retry.ts';
export { recoverDeliveries, MAX_RECOVER, type RecoverResult } from './recover.ts';
export { countDeliveries } from './counts.ts';
export { endpointHealth, queueFigures, HEALTH_WINDOW_MS, type EndpointHealth, type QueueFigures } from './health.ts';
export {
  DELIVERY_STATUSES, deliveryNotFound,
  type AttemptDetails, type DeliveryCounts, type DeliveryDetails, type DeliveryStatus, type DeliverySummary,
} from './record.ts';

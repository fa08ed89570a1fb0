import type { Task } from 'graphile-worker';
import { logContext } from '../../shared/log/logger.ts';
import { parseDeliveryPayload, performDelivery, type DeliveryDeps } from '../delivery/deliver.ts';

/**
 * `app/webhook`: one attempt of one delivery. Retries are scheduled
 * by the attempt itself (graphile-worker's own retry is off: jobs have `max_attempts` 1), so the
 * backoff is exactly `webhooks.backoff`. Log lines carry the delivery id as `jobId`.
 */
export function webhookTask(deps: DeliveryDeps): Task {
  return async function webhook(payload) {
    const parsed = parseDeliveryPayload(payload);
    if (parsed === null) {
      deps.log.error({ payload }, 'app/webhook job without a delivery id, endpoint id and event: dropped');
      return;
    }
    await logContext.run({ jobId: parsed.deliveryId }, () => performDelivery(deps, parsed));
  };
}

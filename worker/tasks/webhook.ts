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
      // the names of its fields and its delivery id, never their values: a payload holds the signed body
      const object = typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>) : null;
      const fields = object ? Object.keys(object) : typeof payload;
      const deliveryId = typeof object?.deliveryId === 'string' ? object.deliveryId : undefined;
      deps.log.error(
        { fields, ...(deliveryId === undefined ? {} : { deliveryId }) },
        'app/webhook job without a delivery id, endpoint id and event: dropped',
      );
      return;
    }
    await logContext.run({ jobId: parsed.deliveryId }, () => performDelivery(deps, parsed));
  };
}

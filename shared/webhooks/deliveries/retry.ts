/** Retrying one dead delivery (spec: "dead letter queue -> jobs:retry -> sent again"). */
import { conflict } from '../../errors/app-error.ts';
import type { TenantScope } from '../tenant-scope.ts';
import type { WebhookDeps } from '../deps.ts';
import { deliveryJobSpec, requeuePayload } from './job.ts';
import { SUMMARY_COLUMNS, summary, type DeliveryRow, type DeliverySummary } from './record.ts';
import { showDelivery } from './show.ts';

/**
 * `jobs:retry <id>` (spec: "dead letter queue -> jobs:retry -> sent again"): a dead delivery
 * becomes pending with a new job (same delivery id, so the same `webhook-id` and body) and a new
 * series of `webhooks.maxAttempts` attempts under the same backoff; its earlier attempts stay
 * on record. Throws 404 `APP_WEBHOOK_DELIVERY_NOT_FOUND` (also outside `scope`), 409 `APP_WEBHOOK_DELIVERY_NOT_DEAD`
 * (only dead deliveries are retried; the others are still on their way or delivered), 409
 * `APP_WEBHOOK_ENDPOINT_DISABLED` (the worker would not send it: enable the endpoint first).
 */
export async function retryDelivery(deps: Pick<WebhookDeps, 'sql' | 'config' | 'log'>, scope: TenantScope, id: string): Promise<DeliverySummary> {
  const { sql } = deps;
  const current = await showDelivery(deps, scope, id);
  if (current.status !== 'dead') {
    throw conflict(`webhook delivery ${id} is ${current.status}, not dead: only dead deliveries are retried`, {
      code: 'APP_WEBHOOK_DELIVERY_NOT_DEAD',
      data: { id, status: current.status },
    });
  }
  if (current.endpoint !== null && !current.endpoint.enabled) {
    throw conflict(`webhook endpoint ${current.endpointId} of delivery ${id} is disabled (${current.endpoint.disabledReason ?? 'no reason given'}); enable it first (app webhooks:enable ${current.endpointId})`, {
      code: 'APP_WEBHOOK_ENDPOINT_DISABLED',
      data: { id: current.endpointId, delivery: id },
    });
  }
  const rows = await sql<DeliveryRow[]>`
    with d as (
      update app_webhook_deliveries
         set status = 'pending', next_attempt_at = now(), completed_at = null, updated_at = now()
       where id = ${id} and status = 'dead'
      returning *
    ), j as (
      select count(*) as added from graphile_worker.add_jobs(array(
        select ${deliveryJobSpec(sql, {
          id: sql`d.id`,
          payload: requeuePayload(sql, 'd'),
        })}
        from d
      ))
    )
    select ${sql.unsafe(SUMMARY_COLUMNS)} from d, j`;
  if (rows.length === 0) {
    // Retried (or removed) by someone else between the read and the write.
    throw conflict(`webhook delivery ${id} changed meanwhile; look at it again (app jobs show ${id})`, {
      code: 'APP_WEBHOOK_DELIVERY_NOT_DEAD',
      data: { id },
    });
  }
  deps.log.info({ delivery: id, priorAttempts: current.attempts }, 'dead delivery queued again');
  return summary(rows[0]);
}

/** Sending one delivery again: retry (dead ones: out of the dead letters, sent again) and resend (done or dead). */
import { conflict } from '../../errors/app-error.ts';
import { authorize, type Actor } from '../../access/actor.ts';
import type { WebhookDeps } from '../deps.ts';
import { transaction } from '../../db/transaction.ts';
import { deliveryJobSpec, queuedAgain, requeuePayload } from './job.ts';
import { SUMMARY_COLUMNS, summary, type DeliveryRow, type DeliverySummary } from './record.ts';
import { deliveryInScope } from './show.ts';

type RequeueDeps = Pick<WebhookDeps, 'sql' | 'config' | 'log'>;

/**
 * Queues delivery `id` again when its status is one of `from`: it becomes pending with a new job
 * (same delivery id, so the same `webhook-id` and body) and a new series of
 * `webhooks.maxAttempts` attempts under the same backoff; its earlier attempts stay on record, and
 * the row says when, by whom (`actor`) and after how many attempts it was queued again (record.ts
 * `inCurrentSeries`: the error the earlier series ended with is no longer its last error).
 * Refuses with 409 `refusal` in another status, 409 `APP_WEBHOOK_ENDPOINT_DISABLED` when the
 * endpoint is disabled (the worker would not send it), 404 `APP_WEBHOOK_DELIVERY_NOT_FOUND`.
 */
async function requeue(
  deps: RequeueDeps,
  actor: Actor,
  id: string,
  rule: { from: readonly ('done' | 'dead')[]; refusal: string; what: (status: string) => string },
): Promise<DeliverySummary> {
  const { sql } = deps;
  const current = await deliveryInScope(deps, actor, id);
  if (!(rule.from as readonly string[]).includes(current.status)) {
    throw conflict(`webhook delivery ${id} is ${current.status}, ${rule.what(current.status)}`, {
      code: rule.refusal,
      data: { id, status: current.status },
    });
  }
  if (current.endpoint !== null && !current.endpoint.enabled) {
    throw conflict(
      `webhook endpoint ${current.endpointId} of delivery ${id} is disabled (${current.endpoint.disabledReason ?? 'no reason given'}); enable it first (app webhooks:enable ${current.endpointId})`,
      {
        code: 'APP_WEBHOOK_ENDPOINT_DISABLED',
        data: { id: current.endpointId, delivery: id },
      },
    );
  }
  // in a transaction: a request answered 503 by its timeout never commits it (shared/db/transaction.ts)
  const rows = await transaction(
    sql,
    (tx) => tx<DeliveryRow[]>`
    with d as (
      update app_webhook_deliveries
         set status = 'pending', next_attempt_at = now(), completed_at = null, updated_at = now(),
             ${queuedAgain(tx, actor)}
       where id = ${id} and status = any(${rule.from as string[]}::text[])
      returning *
    ), j as (
      select count(*) as added from graphile_worker.add_jobs(array(
        select ${deliveryJobSpec(tx, {
          id: tx`d.id`,
          payload: requeuePayload(tx, 'd'),
        })}
        from d
      ))
    )
    select ${tx.unsafe(SUMMARY_COLUMNS)} from d, j`,
  );
  if (rows.length === 0) {
    // Queued again (or removed) by someone else between the read and the write.
    throw conflict(`webhook delivery ${id} changed meanwhile; look at it again (app jobs show ${id})`, {
      code: rule.refusal,
      data: { id },
    });
  }
  deps.log.info({ delivery: id, priorAttempts: current.attempts, was: current.status }, 'delivery queued again');
  return summary(rows[0], actor);
}

/**
 * `jobs:retry <id>` (out of the dead letters and sent again): a dead delivery is
 * queued again (see `requeue`). Only dead deliveries are retried (409
 * `APP_WEBHOOK_DELIVERY_NOT_DEAD`): the others are still on their way or delivered. A role that
 * may not retry is refused first (403 `APP_FORBIDDEN`).
 */
export function retryDelivery(deps: RequeueDeps, actor: Actor, id: string): Promise<DeliverySummary> {
  authorize(actor, 'deliveries.retry');
  return requeue(deps, actor, id, {
    from: ['dead'],
    refusal: 'APP_WEBHOOK_DELIVERY_NOT_DEAD',
    // the refusal says what to do instead: a delivered one is sent again by a resend; one still on
    // its way needs nothing
    what: (status) =>
      status === 'done'
        ? `not dead: only dead deliveries are retried; to send a delivered one again, resend it (app jobs:resend ${id})`
        : 'not dead: only dead deliveries are retried, and this one is still on its way',
  });
}

/**
 * `jobs:resend <id>`, `POST /deliveries/:id/resend`: a done or dead delivery
 * is sent again with the same `webhook-id` (a receiver that lost it, or wants it once more); 409
 * `APP_WEBHOOK_DELIVERY_IN_FLIGHT` while it is pending or running.
 */
export function resendDelivery(deps: RequeueDeps, actor: Actor, id: string): Promise<DeliverySummary> {
  authorize(actor, 'deliveries.resend');
  return requeue(deps, actor, id, {
    from: ['done', 'dead'],
    refusal: 'APP_WEBHOOK_DELIVERY_IN_FLIGHT',
    what: () => 'still on its way: resend it once it is done or dead',
  });
}

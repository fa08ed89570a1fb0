/** Bulk replay of an endpoint's dead deliveries over a time range (Svix calls it "recover"). */
import { conflict } from '../../errors/app-error.ts';
import { endpointInScope } from '../endpoints/show.ts';
import { authorize, type Actor } from '../../access/actor.ts';
import { parseTime, timeRangeInvalid } from '../time-range.ts';
import type { WebhookDeps } from '../deps.ts';
import { transaction } from '../../db/transaction.ts';
import { deliveryJobSpec, queuedAgain, requeuePayload } from './job.ts';
import { replayable } from './replayable.ts';

/** Most deliveries one bulk replay queues again; the answer says when more remain. */
export const MAX_RECOVER = 1000;

/** What a bulk replay did. */
export interface RecoverResult {
  endpointId: string;
  /** Deliveries queued again (at most MAX_RECOVER), oldest first. */
  deliveryIds: string[];
  recovered: number;
  /** More dead deliveries match: replay again to queue them. */
  more: boolean;
}

/**
 * Bulk replay ("recover"): every dead delivery of endpoint `endpointId` created in
 * [`since`, `until`) (until: now) is queued again like `jobs:retry` does for one (same delivery
 * id, so the same `webhook-id` and body; a new series of attempts), oldest first, at most
 * MAX_RECOVER per call. Only deliveries of the endpoint's current owner are replayed, so an
 * endpoint given to another tenant never receives the previous tenant's events (the rule of
 * replayable.ts). Throws 404
 * `APP_WEBHOOK_NOT_FOUND` (endpoint not in scope), 409 `APP_WEBHOOK_ENDPOINT_DISABLED`, 422
 * `APP_WEBHOOK_TIME_RANGE_INVALID` (`since` is required), and first 403 `APP_FORBIDDEN` to a role
 * that may not replay.
 */
export async function recoverDeliveries(
  deps: Pick<WebhookDeps, 'sql' | 'config' | 'log' | 'endpoints'>,
  actor: Actor,
  endpointId: string,
  range: { since?: unknown; until?: unknown },
): Promise<RecoverResult> {
  authorize(actor, 'endpoints.recover');
  const { sql } = deps;
  const endpoint = await endpointInScope(deps, actor.scope, endpointId);
  const since = parseTime('since', range.since);
  const until = parseTime('until', range.until);
  if (since === undefined) throw timeRangeInvalid('since', 'is required: replay dead deliveries created since when?');
  if (until !== undefined && until.getTime() <= since.getTime())
    throw timeRangeInvalid('until', 'must be after since', range.until);
  if (endpoint.disabledAt !== null) {
    throw conflict(
      `webhook endpoint ${endpointId} is disabled (${endpoint.disabledReason ?? 'no reason given'}); enable it first`,
      {
        code: 'APP_WEBHOOK_ENDPOINT_DISABLED',
        data: { id: endpointId },
      },
    );
  }
  // the one rule of what a replay takes (replayable.ts), for this endpoint
  const matching = sql`d.endpoint_id = ${endpointId} and ${replayable(sql, { since, until })}`;
  // What retry.ts does for one delivery, for many in one statement; in a transaction, so a request
  // answered 503 by its timeout never commits it (shared/db/transaction.ts).
  const rows = await transaction(
    sql,
    (tx) => tx<{ id: string }[]>`
    with picked as (
      select d.id from app_webhook_deliveries d where ${matching}
       order by d.created_at, d.id limit ${MAX_RECOVER}
       for update skip locked
    ), queued as (
      update app_webhook_deliveries w
         set status = 'pending', next_attempt_at = now(), completed_at = null, updated_at = now(),
             ${queuedAgain(tx, actor)}
        from picked where w.id = picked.id and w.status = 'dead'
      returning w.id, w.endpoint_id, w.event_type, w.attempts, w.created_at, w.traceparent
    ), jobs as (
      select count(*) as added from graphile_worker.add_jobs(array(
        select ${deliveryJobSpec(tx, {
          id: tx`q.id`,
          payload: requeuePayload(tx, 'q'),
        })}
        from queued q
      ))
    )
    select q.id from queued q, jobs order by q.created_at, q.id`,
  );
  const [{ more }] = await sql<
    { more: boolean }[]
  >`select exists (select 1 from app_webhook_deliveries d where ${matching}) as more`;
  const ids = rows.map((row) => row.id);
  deps.log.info({ endpoint: endpointId, recovered: ids.length, more }, 'dead deliveries queued again');
  return { endpointId, deliveryIds: ids, recovered: ids.length, more };
}

/**
 * Auto-disable (docs/reliability.md "Auto-disable"): an enabled endpoint whose every delivery attempt has failed
 * for `webhooks.disableAfter` (5 days) — its first failure since its last success (or since it
 * was last enabled) is that old — and that failed at least `webhooks.disableAfterFailures` (20)
 * times in that span is disabled, the reason kept. Run hourly by the worker's prune task (at
 * most one worker at a time), never in a delivery's path. Enabling the endpoint again starts the
 * count afresh. A 410 still disables at once (shared/webhooks/deliveries/store.ts `recordGone`).
 */
import type { WebhookDeps } from '../deps.ts';
import { disableForService } from './update.ts';
import { emitOperational } from '../operational.ts';

export interface AutoDisabled {
  id: string;
  owner: string | null;
  failingSince: Date;
  failures: number;
  reason: string;
}

/** Disables the endpoints that have failed for long enough at `now`; answers them. */
export async function disableFailingEndpoints(deps: WebhookDeps, now = Date.now()): Promise<AutoDisabled[]> {
  const { config } = deps;
  const after = config.webhooks.disableAfter;
  if (after === null) return [];
  const cutoff = new Date(now - after);
  const at = new Date(now);
  // found on the gates and the attempts; each disabled through its record, which the gate follows
  const failing = await deps.sql<{ id: string; since: Date; failures: number }[]>`
    with failing as (
      select g.endpoint_id as id,
             min(a.started_at) filter (where a.outcome <> 'done' and a.started_at > coalesce(s.last_success, g.enabled_at, '-infinity')) as since,
             count(*) filter (where a.outcome <> 'done' and a.started_at > coalesce(s.last_success, g.enabled_at, '-infinity'))::int as failures
        from app_endpoint_gate g
        join app_webhook_deliveries d on d.endpoint_id = g.endpoint_id
        join app_webhook_attempts a on a.delivery_id = d.id
        left join lateral (
          select max(a2.started_at) as last_success
            from app_webhook_deliveries d2 join app_webhook_attempts a2 on a2.delivery_id = d2.id
           where d2.endpoint_id = g.endpoint_id and a2.outcome = 'done'
        ) s on true
       where g.disabled_at is null
       group by g.endpoint_id, s.last_success, g.enabled_at
    )
    select f.id, f.since, f.failures from failing f
     where f.since <= ${cutoff} and f.failures >= ${config.webhooks.disableAfterFailures}`;
  const disabled: {
    id: string;
    owner: string | null;
    url: string;
    since: Date;
    failures: number;
    disabled_reason: string;
  }[] = [];
  for (const row of failing) {
    const reason = `disabled automatically: every delivery attempt failed since ${row.since.toISOString().replace(/\.\d{3}Z$/, 'Z')} (${row.failures} attempts; webhooks.disableAfter)`;
    const after = await disableForService(deps, row.id, 'failing', reason, at);
    if (after === null || after.disabledReason !== reason) continue; // removed, or disabled meanwhile
    disabled.push({ ...row, owner: after.owner, url: after.url, disabled_reason: reason });
  }
  for (const row of disabled) {
    await emitOperational(
      deps,
      'app.endpoint.disabled',
      { endpointId: row.id, url: row.url, reason: row.disabled_reason },
      row.owner,
    );
    deps.log.warn(
      { endpoint: row.id, owner: row.owner, failingSince: row.since, failures: row.failures },
      'webhook endpoint disabled automatically: every attempt failed for webhooks.disableAfter',
    );
  }
  return disabled.map((row) => ({
    id: row.id,
    owner: row.owner,
    failingSince: row.since,
    failures: row.failures,
    reason: row.disabled_reason,
  }));
}

/**
 * Auto-disable (docs/reliability.md "Auto-disable"): an enabled endpoint whose every delivery attempt has failed
 * for `webhooks.disableAfter` (5 days) — its first failure since its last success (or since it
 * was last enabled) is that old — and that failed at least `webhooks.disableAfterFailures` (20)
 * times in that span is disabled, the reason kept. Run hourly by the worker's prune task (at
 * most one worker at a time), never in a delivery's path. Enabling the endpoint again starts the
 * count afresh. A 410 still disables at once (shared/webhooks/deliveries/store.ts `recordGone`).
 */
import type { WebhookDeps } from '../deps.ts';
import { endpointTable, notifyEndpointsChanged } from './store.ts';
import { emitOperational } from '../operational.ts';

export interface AutoDisabled {
  id: string;
  owner: string | null;
  failingSince: Date;
  failures: number;
  reason: string;
}

/** Disables the endpoints that have failed for long enough at `now`; answers them. */
export async function disableFailingEndpoints(
  deps: Pick<WebhookDeps, 'config' | 'sql' | 'log' | 'cache'>,
  now = Date.now(),
): Promise<AutoDisabled[]> {
  const { config } = deps;
  const after = config.webhooks.disableAfter;
  if (after === null) return [];
  const cutoff = new Date(now - after);
  const at = new Date(now);
  const disabled = await deps.sql.begin(async (tx) => {
    const rows = await tx<
      { id: string; owner: string | null; since: Date; failures: number; disabled_reason: string }[]
    >`
      with failing as (
        select w.id,
               min(a.started_at) filter (where a.outcome <> 'done' and a.started_at > coalesce(s.last_success, w.enabled_at, '-infinity')) as since,
               count(*) filter (where a.outcome <> 'done' and a.started_at > coalesce(s.last_success, w.enabled_at, '-infinity'))::int as failures
          from ${endpointTable(tx, config)} w
          join app_webhook_deliveries d on d.endpoint_id = w.id
          join app_webhook_attempts a on a.delivery_id = d.id
          left join lateral (
            select max(a2.started_at) as last_success
              from app_webhook_deliveries d2 join app_webhook_attempts a2 on a2.delivery_id = d2.id
             where d2.endpoint_id = w.id and a2.outcome = 'done'
          ) s on true
         where w.disabled_at is null
         group by w.id, s.last_success, w.enabled_at
      )
      update ${endpointTable(tx, config)} w
         set disabled_at = ${at},
             disabled_reason = 'disabled automatically: every delivery attempt failed since ' || to_char(f.since at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') || ' (' || f.failures || ' attempts; webhooks.disableAfter)',
             updated_at = ${at}
        from failing f
       where f.id = w.id and w.disabled_at is null and f.since <= ${cutoff} and f.failures >= ${config.webhooks.disableAfterFailures}
      returning w.id, w.owner, f.since, f.failures, w.disabled_reason`;
    if (rows.length > 0) await notifyEndpointsChanged(tx, [...new Set(rows.map((row) => row.owner))]);
    return rows;
  });
  for (const row of disabled) {
    deps.cache?.invalidate(row.owner);
    await emitOperational(
      deps,
      'app.endpoint.disabled',
      { endpointId: row.id, reason: row.disabled_reason },
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

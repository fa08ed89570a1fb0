/**
 * When the hourly prune (the worker's `app/prune`, worker/tasks/prune.ts) last ran to its end,
 * kept in the database (migrations/035) so that every process can tell it: the metric
 * `app_prune_last_success_timestamp_seconds` (shared/metrics/queue-gauges.ts) and the alert on it
 * (deploy/prometheus/alerts.yaml, `WebhookPruneFailing`). Before the first prune completes, it
 * holds the time the table was made (the migration).
 */
import type { Queryable } from '../db/connect.ts';

/** Records that a prune ran to its end now (the database's clock, as every reader compares with). */
export async function recordPruneSuccess(sql: Queryable): Promise<void> {
  await sql`
    insert into app_prune_runs (succeeded_at) values (now())
    on conflict (one) do update set succeeded_at = excluded.succeeded_at`;
}

/** When a prune last ran to its end (before the first: when the record began); null when the row is missing. */
export async function lastPruneSuccess(sql: Queryable): Promise<Date | null> {
  const [row] = await sql<{ succeededAt: Date }[]>`select succeeded_at as "succeededAt" from app_prune_runs`;
  return row?.succeededAt ?? null;
}

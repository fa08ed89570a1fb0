/**
 * A delivery history at known times, written straight into the tables (as bench/load-history.ts
 * does at scale): each delivery its own event's, made a minute before its first attempt, with the
 * attempts given; finished (done when its last attempt was, else dead), so no job or worker ever
 * touches it. For the charts' tests (shared/webhooks/deliveries/series.ts).
 */
import type { Sql } from '../../shared/db/connect.ts';
import { newDeliveryId, newEventId } from '../../shared/webhooks/ids.ts';

export interface PastAttempt {
  at: Date;
  outcome: 'done' | 'retry' | 'dead';
  durationMs: number;
}

/** Writes one delivery to `endpoint` per entry of `deliveries` (its attempts in order); answers their ids. */
export async function seedAttempts(
  sql: Sql,
  endpoint: { id: string; owner: string | null },
  deliveries: readonly (readonly PastAttempt[])[],
): Promise<string[]> {
  const ids: string[] = [];
  for (const attempts of deliveries) {
    const made = attempts[0].at.getTime() - 60_000;
    const [id, event] = [newDeliveryId(made), newEventId(made)];
    const status = attempts.at(-1)?.outcome === 'done' ? 'done' : 'dead';
    await sql`insert into app_events (id, type, payload, owner, created_at)
              values (${event}, 'order.created', '{}', ${endpoint.owner}, ${new Date(made)})`;
    await sql`
      insert into app_webhook_deliveries (id, event_id, endpoint_id, owner, event_type, queue, body, status, attempts, created_at, completed_at)
      values (${id}, ${event}, ${endpoint.id}, ${endpoint.owner}, 'order.created', 'webhooks', '{}', ${status},
              ${attempts.length}, ${new Date(made)}, ${attempts.at(-1)?.at ?? null})`;
    for (const [index, attempt] of attempts.entries())
      await sql`
        insert into app_webhook_attempts (delivery_id, attempt, started_at, duration_ms, status, outcome)
        values (${id}, ${index + 1}, ${attempt.at}, ${attempt.durationMs}, ${attempt.outcome === 'done' ? 200 : 500}, ${attempt.outcome})`;
    ids.push(id);
  }
  return ids;
}

/** `count` dead deliveries to `endpoint` of one attempt each, a minute apart, the newest's attempt a minute ago (the listings' paging tests). */
export const seedDeadPerMinute = (sql: Sql, endpoint: { id: string; owner: string | null }, count: number) =>
  seedAttempts(
    sql,
    endpoint,
    Array.from({ length: count }, (_, n) => [
      { at: new Date(Date.now() - (count + 34 - n) * 60_000), outcome: 'dead' as const, durationMs: 5 },
    ]),
  );

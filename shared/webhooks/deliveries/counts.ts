/** Deliveries per state across every tenant, for operators (`jobs` statistics). */
import type { Sql } from '../../db/connect.ts';
import type { DeliveryStatus } from './record.ts';

/** Deliveries per state (all four keys present), optionally of one queue. */
export async function countDeliveries(
  deps: { sql: Sql },
  options: { queue?: string } = {},
): Promise<Record<DeliveryStatus, number>> {
  const { sql } = deps;
  const rows = await sql<{ status: DeliveryStatus; count: number }[]>`
    select status, count(*)::int as count from app_webhook_deliveries
     where ${options.queue === undefined ? sql`true` : sql`queue = ${options.queue}`}
     group by status`;
  const counts = { pending: 0, running: 0, done: 0, dead: 0 };
  for (const row of rows) counts[row.status] = row.count;
  return counts;
}

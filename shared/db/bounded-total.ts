/**
 * The `total` of a listing page, bounded: counting every matching row of a table of millions
 * costs seconds (the deliveries listing's first page took 2.3 s at 5 million rows, most of it
 * the count), so a listing counts exactly only up to `exactUpTo` rows (`api.exactTotal`) and,
 * past that, answers PostgreSQL's own estimate of the rows the same filter matches, never less
 * than the bound, and says so (`estimated`). `exactUpTo` 0 counts every row, as before.
 */
import type postgres from 'postgres';
import type { Queryable } from './connect.ts';

/** A listing's total and whether it is PostgreSQL's estimate (past `api.exactTotal`). */
export interface PageTotal {
  total: number;
  estimated: boolean;
}

type Fragment = postgres.PendingQuery<postgres.Row[]>;

/** The estimate of the planner's top plan node of `explain (format json)` (its "Plan Rows"). */
function plannedRows(rows: readonly Record<string, unknown>[]): number {
  const plan = (rows[0]?.['QUERY PLAN'] as { Plan?: { 'Plan Rows'?: number } }[] | undefined)?.[0]?.Plan?.['Plan Rows'];
  return typeof plan === 'number' && Number.isFinite(plan) ? Math.round(plan) : 0;
}

/**
 * The number of rows `select 1 <from>` answers (`from`: a fragment `from … where …`, with
 * parameters): exact when it is at most `exactUpTo` (or `exactUpTo` is 0), else the planner's
 * estimate and at least `exactUpTo + 1`.
 */
export async function boundedTotal(sql: Queryable, from: Fragment, exactUpTo: number): Promise<PageTotal> {
  if (exactUpTo <= 0) {
    const [{ total }] = await sql<{ total: number }[]>`select count(*)::int as total ${from}`;
    return { total, estimated: false };
  }
  const [{ total }] = await sql<{ total: number }[]>`
    select count(*)::int as total from (select 1 ${from} limit ${exactUpTo + 1}) as bounded`;
  if (total <= exactUpTo) return { total, estimated: false };
  const plan = await sql<Record<string, unknown>[]>`explain (format json) select 1 ${from}`;
  return { total: Math.max(exactUpTo + 1, plannedRows(plan)), estimated: true };
}

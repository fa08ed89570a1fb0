/**
 * The `total` of a listing page, bounded: counting every matching row of a table of millions
 * costs seconds (the deliveries listing's first page took 2.3 s at 5 million rows, most of it
 * the count), so a listing counts only when PostgreSQL expects at most `exactUpTo` rows
 * (`api.exactTotal`) and, past that, answers PostgreSQL's own estimate of the rows the same
 * filter matches, and says so (`estimated`). `exactUpTo` 0 counts every row, as before.
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

/** Where a page stands: rows skipped before it, its size, and the records it got. */
export interface PageWindow {
  offset: number;
  perPage: number;
  got: number;
}

/**
 * The total of the listing whose matching rows are `select 1 <from>` (`from`: a fragment
 * `from … where …`, with parameters), once its page (`window`) is read:
 *
 * - a page that is not full is the last one: the total is exact without counting;
 * - else, when PostgreSQL expects at most `exactUpTo` rows, they are counted (at most
 *   `exactUpTo + 1` of them: more is an estimate, never below the bound);
 * - else its estimate of the matching rows, never below the rows the pages so far hold.
 *
 * `exactUpTo` 0 always counts every row.
 */
export async function pageTotal(sql: Queryable, from: Fragment, exactUpTo: number, window: PageWindow): Promise<PageTotal> {
  if (window.got > 0 && window.got < window.perPage) return { total: window.offset + window.got, estimated: false };
  if (window.got === 0 && window.offset === 0) return { total: 0, estimated: false };
  if (exactUpTo <= 0) {
    const [{ total }] = await sql<{ total: number }[]>`select count(*)::int as total ${from}`;
    return { total, estimated: false };
  }
  const seen = window.offset + window.got;
  const expected = plannedRows(await sql<Record<string, unknown>[]>`explain (format json) select 1 ${from}`);
  if (expected > exactUpTo) return { total: Math.max(expected, seen), estimated: true };
  const [{ total }] = await sql<{ total: number }[]>`
    select count(*)::int as total from (select 1 ${from} limit ${exactUpTo + 1}) as bounded`;
  if (total <= exactUpTo) return { total, estimated: false };
  return { total: Math.max(exactUpTo + 1, expected, seen), estimated: true };
}

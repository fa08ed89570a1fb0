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

/** A piece of SQL with its parameters. */
export type Fragment = postgres.PendingQuery<postgres.Row[]>;

/** PostgreSQL's estimate of the rows `select 1 <from>` answers (the "Plan Rows" of its plan's top node). */
async function expectedRows(sql: Queryable, from: Fragment): Promise<number> {
  const rows = await sql<Record<string, unknown>[]>`explain (format json) select 1 ${from}`;
  const plan = (rows[0]?.['QUERY PLAN'] as { Plan?: { 'Plan Rows'?: number } }[] | undefined)?.[0]?.Plan?.['Plan Rows'];
  return typeof plan === 'number' && Number.isFinite(plan) ? Math.round(plan) : 0;
}

/** Where a page stands: rows skipped before it and its size. */
export interface PageWindow {
  offset: number;
  perPage: number;
}

/** The column a page's rows carry their listing's total in, when it is counted with the page. */
export const TOTAL_COLUMN = 'listing_total';

/**
 * Reads a listing's page (`readPage`) and its total, the listing's matching rows being
 * `select 1 <from>` (`from`: a fragment `from … where …`, with parameters).
 *
 * `exactUpTo` 0 counts every row (a small table, or `api.exactTotal: 0`), in the page's own
 * statement: `readPage` is given a select-list item (an uncorrelated subquery, run once) that
 * its rows then carry as `listing_total` (TOTAL_COLUMN), so a page and its total are one round
 * trip and one snapshot; a page past the end has no row to carry it and is counted on its own.
 * Otherwise PostgreSQL's estimate of those rows is asked beside the page, then:
 *
 * - a page that is not full is the last one: the total is exact without counting;
 * - else, when PostgreSQL expects at most `exactUpTo` rows, they are counted (at most
 *   `exactUpTo + 1` of them: more is an estimate, never below the bound);
 * - else its estimate of the matching rows, never below the rows the pages so far hold.
 */
export async function pageWithTotal<T>(
  sql: Queryable,
  from: Fragment,
  exactUpTo: number,
  window: PageWindow,
  readPage: (total?: Fragment) => Promise<T[]>,
): Promise<{ rows: T[]; total: PageTotal }> {
  if (exactUpTo <= 0) {
    const rows = await readPage(sql`(select count(*)::int ${from}) as ${sql(TOTAL_COLUMN)}`);
    if (rows.length > 0)
      return { rows, total: { total: (rows[0] as Record<string, unknown>)[TOTAL_COLUMN] as number, estimated: false } };
    if (window.offset === 0) return { rows, total: { total: 0, estimated: false } };
    const [{ total }] = await sql<{ total: number }[]>`select count(*)::int as total ${from}`;
    return { rows, total: { total, estimated: false } };
  }
  const [rows, expected] = await Promise.all([readPage(), expectedRows(sql, from)]);
  const seen = window.offset + rows.length;
  if (rows.length > 0 && rows.length < window.perPage) return { rows, total: { total: seen, estimated: false } };
  if (rows.length === 0 && window.offset === 0) return { rows, total: { total: 0, estimated: false } };
  if (expected > exactUpTo) return { rows, total: { total: Math.max(expected, seen), estimated: true } };
  const [{ total }] = await sql<{ total: number }[]>`
    select count(*)::int as total from (select 1 ${from} limit ${exactUpTo + 1}) as bounded`;
  if (total <= exactUpTo) return { rows, total: { total, estimated: false } };
  return { rows, total: { total: Math.max(exactUpTo + 1, expected, seen), estimated: true } };
}

/**
 * The bound a listing of `table` counts its total to (`pageWithTotal`): 0 (count every row) while
 * PostgreSQL estimates the whole table at no more than `exactTotal` rows, or when `exactTotal`
 * is 0; else `exactTotal`.
 */
export async function countBound(
  sql: Queryable,
  table: 'app_webhook_deliveries' | 'app_events',
  exactTotal: number,
): Promise<number> {
  if (exactTotal <= 0) return 0;
  return (await estimatedTableRows(sql, table)) <= exactTotal ? 0 : exactTotal;
}

/** How long a process trusts PostgreSQL's estimate of a table's size. */
const TABLE_SIZE_TTL_MS = 10_000;
const tableSizes = new Map<string, { rows: number; until: number }>();

/**
 * PostgreSQL's estimate of the rows of `table` (from its current size on disk and statistics),
 * asked at most every ten seconds per process: a listing of a table under `api.exactTotal` rows
 * counts exactly beside its page and sorts it as it is, the cheapest way while it is small.
 */
async function estimatedTableRows(sql: Queryable, table: 'app_webhook_deliveries' | 'app_events'): Promise<number> {
  const now = Date.now();
  const known = tableSizes.get(table);
  if (known && known.until > now) return known.rows;
  const rows = await expectedRows(sql, sql`from ${sql(table)}`);
  tableSizes.set(table, { rows, until: now + TABLE_SIZE_TTL_MS });
  return rows;
}

/** Forgets the table sizes this process knows (tests that change a table's size at once). */
export function forgetTableSizes(): void {
  tableSizes.clear();
}

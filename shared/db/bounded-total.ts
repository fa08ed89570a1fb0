/**
 * The `total` of a listing page, bounded: counting every matching row of a table of millions
 * costs seconds (the deliveries listing's first page took 2.3 s at 5 million rows, most of it
 * the count), so a listing counts only when PostgreSQL expects at most `exactUpTo` rows
 * (`api.exactTotal`) and, past that, answers PostgreSQL's own estimate of the rows the same
 * filter matches, and says so (`estimated`). `exactUpTo` 0 counts every row, as before.
 */
import type postgres from 'postgres';
import type { Queryable } from './connect.ts';
import { withGenericPlan } from './generic-plan.ts';

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

/**
 * A whole number of a listing's window (a LIMIT or an OFFSET) as SQL: written into the statement
 * when `keepPlan`, a parameter otherwise.
 *
 * PostgreSQL plans a prepared statement whose LIMIT is a parameter again at every call: the
 * generic plan must guess the limit (a tenth of the rows) and so always looks dearer than a plan
 * made for the value given. On the partitioned deliveries that planning cost about 2 ms a listing
 * for 0.4 ms of reading. With the numbers in the statement's text, the statement (prepared on
 * each connection) keeps one plan, made for the numbers it holds and for no value of its other
 * parameters. So a listing writes its numbers in only where one plan serves every value:
 *
 * - on its first page: each distinct text is one more statement kept on every connection (until
 *   the driver recycles it, within the hour), and the first page is the one asked again and again
 *   (the console, a client polling for what is new); a later page keeps its parameters, and where
 *   one plan serves its filters asks for the generic plan instead (generic-plan.ts), so the
 *   statements kept do not grow with the pages read;
 * - with filters whose best plan is the same for every value: the states, an endpoint or an owner
 *   (an index leads with it and reads its rows in order, whatever its size), an event (a few
 *   rows). For an owner that holds because PostgreSQL is told that owners are many
 *   (migrations/031): told only what it measured, it judged the state's index, its rows in the
 *   table's order, cheaper for an average share. A plan made for no type, queue or time range in
 *   particular may read a rare one's 25 rows through millions of others', so those listings are
 *   planned for their values each time.
 */
export function windowNumber(sql: Queryable, n: number, keepPlan: boolean): Fragment {
  if (!Number.isSafeInteger(n) || n < 0)
    throw new RangeError(`a listing's limit or offset must be a whole number, got ${n}`);
  return keepPlan ? sql.unsafe(String(n)) : sql`${n}`;
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
 * - else its estimate of the matching rows, never below the rows the pages so far hold, and,
 *   for an empty page past the end, never above its offset: a client asking page 10^9 is not
 *   told there are 10^9 pages, nor sent to its `last` page, as far again.
 *
 * With `estimateKey` (the listing and its filters, as its caller names them), PostgreSQL's
 * estimate and a count that found more than `exactUpTo` rows are remembered for that key for ten
 * seconds in this process: a listing asked again and again (the console, a client polling) then
 * neither plans the estimate nor counts past the bound each time. A total under the bound is
 * counted every time; an estimate is at most ten seconds older than it would have been. With
 * `genericPlan` that count asks for its generic plan (generic-plan.ts), as the caller's page does:
 * a small tenant's total, counted at every call, was otherwise planned at every call.
 */
export async function pageWithTotal<T>(
  sql: Queryable,
  from: Fragment,
  exactUpTo: number,
  window: PageWindow,
  readPage: (total?: Fragment) => Promise<T[]>,
  options: { estimateKey?: string; genericPlan?: boolean } = {},
): Promise<{ rows: T[]; total: PageTotal }> {
  const { estimateKey } = options;
  if (exactUpTo <= 0) {
    const rows = await readPage(sql`(select count(*)::int ${from}) as ${sql(TOTAL_COLUMN)}`);
    if (rows.length > 0)
      return { rows, total: { total: (rows[0] as Record<string, unknown>)[TOTAL_COLUMN] as number, estimated: false } };
    if (window.offset === 0) return { rows, total: { total: 0, estimated: false } };
    const [{ total }] = await sql<{ total: number }[]>`select count(*)::int as total ${from}`;
    return { rows, total: { total, estimated: false } };
  }
  const known = estimateKey === undefined ? undefined : rememberedEstimate(estimateKey);
  const [rows, expected] = await Promise.all([readPage(), known?.expected ?? expectedRows(sql, from)]);
  if (estimateKey !== undefined && known === undefined) rememberEstimate(estimateKey, { expected, pastBound: false });
  // the rows the pages so far hold: an empty page holds none, and says the rows are at most its offset
  const seen = rows.length > 0 ? window.offset + rows.length : 0;
  const atMost = rows.length > 0 ? Number.POSITIVE_INFINITY : window.offset;
  const estimate = (...bounds: number[]) => ({
    rows,
    total: { total: Math.min(Math.max(...bounds, seen), atMost), estimated: true },
  });
  if (rows.length > 0 && rows.length < window.perPage) return { rows, total: { total: seen, estimated: false } };
  if (rows.length === 0 && window.offset === 0) return { rows, total: { total: 0, estimated: false } };
  if (expected > exactUpTo) return estimate(expected);
  const pastBound = estimate(exactUpTo + 1, expected);
  if (known?.pastBound) return pastBound;
  const count = (on: Queryable) => on<{ total: number }[]>`
    select count(*)::int as total from (select 1 ${from} limit ${exactUpTo + 1}) as bounded`;
  const [{ total }] = await (options.genericPlan ? withGenericPlan(sql, count) : count(sql));
  if (total <= exactUpTo) return { rows, total: { total, estimated: false } };
  if (estimateKey !== undefined) rememberEstimate(estimateKey, { expected, pastBound: true });
  return pastBound;
}

/** What a listing (by its `estimateKey`) learnt of its total, or a table of its size: PostgreSQL's estimate, and whether a count went past the bound. */
interface RememberedEstimate {
  expected: number;
  pastBound: boolean;
}

/** How long a process trusts what it learnt of a listing's total or a table's size. */
const ESTIMATE_TTL_MS = 10_000;
/** Listings remembered at most per process; past it the oldest is forgotten first. */
const ESTIMATES_KEPT = 1_000;
const estimates = new Map<string, RememberedEstimate & { until: number }>();

function rememberedEstimate(key: string): RememberedEstimate | undefined {
  const known = estimates.get(key);
  if (known === undefined) return undefined;
  if (known.until > Date.now()) return known;
  estimates.delete(key);
  return undefined;
}

function rememberEstimate(key: string, estimate: RememberedEstimate): void {
  estimates.delete(key);
  estimates.set(key, { ...estimate, until: Date.now() + ESTIMATE_TTL_MS });
  if (estimates.size > ESTIMATES_KEPT) estimates.delete(estimates.keys().next().value as string);
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

/**
 * PostgreSQL's estimate of the rows of `table` (from its current size on disk and statistics),
 * asked at most every ten seconds per process (remembered with the listings' estimates): a
 * listing of a table under `api.exactTotal` rows counts exactly beside its page and sorts it as
 * it is, the cheapest way while it is small.
 */
async function estimatedTableRows(sql: Queryable, table: 'app_webhook_deliveries' | 'app_events'): Promise<number> {
  const key = `table ${table}`;
  const known = rememberedEstimate(key);
  if (known) return known.expected;
  const rows = await expectedRows(sql, sql`from ${sql(table)}`);
  rememberEstimate(key, { expected: rows, pastBound: false });
  return rows;
}

/** Forgets the table sizes and listings' estimates this process knows (tests that change a table's size at once). */
export function forgetTableSizes(): void {
  estimates.clear();
}

/**
 * A query sent as PostgreSQL's unnamed statement instead of one the driver prepares and names.
 *
 * The driver names every statement, and after five runs PostgreSQL may plan a named statement
 * once for any parameters (a generic plan). For a statement over arrays whose length varies from
 * one element to thousands (an emit's fan-out), the generic plan guesses ten rows per
 * `unnest(<parameter>)` and joins 1,000 endpoints in a nested loop: 200 ms instead of 20. The
 * unnamed statement is planned for the values it is given, every time, like
 * `plan_cache_mode = force_custom_plan`, but without forcing it on every other statement of the
 * transaction: the foreign-key checks PostgreSQL runs per inserted row keep their cached plans
 * (planning them again for each of 1,000 rows cost an emit about 10 ms).
 *
 * postgres.js (3.4) chooses per query whether to name it from the query's own options, which its
 * tagged template does not expose: this sets the one it reads.
 */
import type postgres from 'postgres';

export function unprepared<R extends readonly object[]>(
  query: postgres.PendingQuery<R & postgres.Row[]>,
): postgres.PendingQuery<R & postgres.Row[]> {
  (query as unknown as { options: { prepare?: boolean } }).options.prepare = false;
  return query;
}

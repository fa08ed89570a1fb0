/**
 * A query run with PostgreSQL's generic plan of its prepared statement: planned once per
 * connection, for any values of its parameters.
 *
 * PostgreSQL chooses between its generic plan and one made for the values given by comparing
 * their estimated costs, and a generic plan whose parameters it cannot estimate (a page's limit
 * and offset) looks dearer than it is. A later page of a listing over the weekly partitions was
 * then planned again at every call, about 5 ms of PostgreSQL's time for 1-2 ms of reading, though
 * its plan was the same each time. Where the caller knows one plan serves every value (only one
 * index can read the page in order), this asks for the generic one, for this statement alone:
 * `plan_cache_mode` set with `set local` in a transaction of its own. The four statements (begin,
 * set, the query, commit) go out together on one connection, so they cost about one round trip,
 * not four.
 *
 * Not for a filter that another index could serve: a generic plan is made for no value in
 * particular, and may read a rare value's rows through everybody else's.
 *
 * Inside a caller's transaction the setting would outlive the statement, so there the statement
 * is planned as PostgreSQL chooses.
 */
import type { Queryable } from './connect.ts';

export async function withGenericPlan<T>(sql: Queryable, run: (sql: Queryable) => Promise<T>): Promise<T> {
  if (!('reserve' in sql)) return run(sql);
  const reserved = await sql.reserve();
  try {
    // each statement is its own message with its own sync: a failing query still lets the
    // commit end the transaction, and every reply is read before the connection goes back
    const [, , result] = await Promise.allSettled([
      reserved`begin`,
      reserved`set local plan_cache_mode = force_generic_plan`,
      run(reserved),
      reserved`commit`,
    ]);
    if (result.status === 'rejected') throw result.reason;
    return result.value;
  } finally {
    reserved.release();
  }
}

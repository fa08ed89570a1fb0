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
 * `plan_cache_mode` set with `set local` in a transaction of its own (`transaction`: its begin, then
 * the setting and the query together, then its commit).
 *
 * The query's rows are answered only once the transaction has committed: a begin, setting or
 * commit that failed (a connection reset in the middle) fails the call, and a connection lost
 * under the setting or the query is given nothing more (shared/db/transaction.ts). A reserved
 * connection (`sql.reserve()`) would carry the four statements in one round trip, but the
 * `postgres` driver (3.4.9) loses a reservation that waits for a connection while one closes, and
 * hands a released reservation whose connection closed to the pool's next query, which then never
 * settles (test/shared/db/generic-plan.test.ts, test/api/listing-blip.test.ts).
 *
 * Not for a filter that another index could serve: a generic plan is made for no value in
 * particular, and may read a rare value's rows through everybody else's.
 *
 * Inside a caller's transaction the setting would outlive the statement, so there the statement
 * is planned as PostgreSQL chooses.
 *
 * For reads only: the transaction is `read only`, so it claims no request's commit and leaves the
 * request's timeout in force (shared/db/transaction.ts).
 */
import type { Queryable } from './connect.ts';
import { transaction } from './transaction.ts';

export async function withGenericPlan<T>(sql: Queryable, run: (sql: Queryable) => Promise<T>): Promise<T> {
  if (!('begin' in sql)) return run(sql);
  return transaction(
    sql,
    async (tx) => {
      // the setting is sent first, the query right behind it, without waiting for its answer
      const set = tx`set local plan_cache_mode = force_generic_plan`.execute();
      const [, result] = await Promise.all([set, run(tx)]);
      return result;
    },
    'read only',
  );
}

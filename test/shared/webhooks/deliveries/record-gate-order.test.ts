/**
 * The record of several endpoints' attempts refreshes their gates' slow/quick marks; it locks
 * those gate rows in key order, as claims and wakes do. A wake holding the first gate and asking
 * for the second (key order) then never waits on a record that holds the second and asks for the
 * first: there is no cycle for PostgreSQL to break by killing one of them.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { recordAttempts } from '../../../../shared/webhooks/deliveries/store.ts';
import { createTestDatabase } from '../../../helpers/database.ts';
import { eventually } from '../../../helpers/poll.ts';
import { endpoint, harness, send } from '../../../worker/helpers.ts';
import { quickAttempt } from './attempt-record.ts';

const db = await createTestDatabase();
const h = harness(db);

afterEach(async () => {
  await db.sql`delete from app_webhooks`;
});

describe('gate locks taken by the record', () => {
  it('the record locks the gates it marks in key order: waiting for the first, it holds none of the others', async () => {
    const made = [await endpoint(h, 'http://127.0.0.1:9/one'), await endpoint(h, 'http://127.0.0.1:9/two')];
    // key order as PostgreSQL sorts the ids (the database's collation, not JavaScript's)
    const ordered = await h.sql<{ endpoint_id: string }[]>`
      select endpoint_id from app_endpoint_gate
       where endpoint_id = any(${made.map((ep) => ep.id)}::text[]) order by endpoint_id`;
    const [first, second] = ordered.map((row) => made.find((ep) => ep.id === row.endpoint_id)!);
    const [firstDelivery] = await send(h, first);
    const [secondDelivery] = await send(h, second);
    const marks = await h.sql`select 1 from app_endpoint_gate
                               where endpoint_id = any(${[first.id, second.id]}::text[]) and fast_until is null`;
    assert.equal(marks.length, 2, 'neither gate has a quick mark yet, so the record must write both');

    const wake = await h.sql.reserve();
    try {
      await wake`begin`;
      // what a wake of both endpoints does first: the lower key
      await wake`select 1 from app_endpoint_gate where endpoint_id = ${first.id} for no key update`;

      // the later key listed first, so an update in input order would take it first
      const recording = recordAttempts(h.sql, [
        quickAttempt(secondDelivery, second.id),
        quickAttempt(firstDelivery, first.id),
      ]);
      const [{ pid: wakePid }] = await wake<{ pid: number }[]>`select pg_backend_pid() as pid`;
      await eventually(
        async () =>
          (
            await h.sql`select 1 from pg_stat_activity
                         where datname = current_database() and ${wakePid}::int = any(pg_blocking_pids(pid))`
          ).length === 1,
        10_000,
        'the record to wait for the gate the wake holds',
      );

      // the wake's next gate: free, since the record asks for gates in key order
      await assert.doesNotReject(
        wake`select 1 from app_endpoint_gate where endpoint_id = ${second.id} for no key update nowait`,
        'the waiting record holds no gate after the one it waits for',
      );
      await wake`commit`;

      assert.deepEqual(await recording, [true, true], 'both attempts recorded once the wake committed');
      const marked = await h.sql`select 1 from app_endpoint_gate
                                  where endpoint_id = any(${[first.id, second.id]}::text[]) and fast_until > now()`;
      assert.equal(marked.length, 2, 'both gates carry their quick mark');
    } finally {
      await wake`rollback`.catch(() => {});
      wake.release();
    }
  });
});

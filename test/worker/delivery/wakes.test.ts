/**
 * The wakes of one worker process go out together (worker/delivery/deliver.ts `wake`): runs that
 * give slots back at once for endpoints with parked deliveries (a burst at start, several workers)
 * wake every line in one transaction, each gate locked once, instead of one transaction a run
 * queued on the same gate rows. Each line is still woken into its endpoint's free slots, oldest
 * first, with its jobs queued.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deliveryQueries } from '../../../worker/delivery/deliver.ts';
import { createTestDatabase } from '../../helpers/database.ts';
import { endpoint, harness, jobRows, send } from '../helpers.ts';

const db = await createTestDatabase();

describe('wakes of one process', () => {
  it('wakes asked together for two endpoints go out in one transaction, each line woken into its free slots, oldest first', async () => {
    const h = harness(db);
    const cap = h.config.webhooks.endpointConcurrency;
    const first = await endpoint(h, 'http://127.0.0.1:9/first');
    const second = await endpoint(h, 'http://127.0.0.1:9/second');
    const lines: Record<string, string[]> = { [first.id]: [], [second.id]: [] };
    for (let i = 0; i < cap + 2; i++) {
      lines[first.id].push(...(await send(h, first, 'order.created', { i })));
      lines[second.id].push(...(await send(h, second, 'order.created', { i })));
    }
    const all = [...lines[first.id], ...lines[second.id]];
    // parked as a claim at the cap leaves them: pending, in line by seq, no job
    for (const id of all) {
      await h.sql`update app_webhook_deliveries
                     set parked_at = now(), seq = nextval('app_delivery_seq'), next_attempt_at = null
                   where id = ${id}`;
    }
    await h.sql`delete from graphile_worker._private_jobs where key = any(${all}::text[])`;

    const queries = deliveryQueries(h);
    await Promise.all([queries.wake(first.id), queries.wake(second.id), queries.wake(first.id)]);

    const rows = await h.sql<{ id: string; endpoint_id: string; slot: boolean; parked: boolean; tx: string }[]>`
      select id, endpoint_id, slot, parked_at is not null as parked, xmin::text as tx
        from app_webhook_deliveries where id = any(${all}::text[])`;
    const woken = rows.filter((row) => !row.parked);
    for (const [endpointId, line] of Object.entries(lines)) {
      assert.deepEqual(
        woken
          .filter((row) => row.endpoint_id === endpointId)
          .map((row) => row.id)
          .sort(),
        line.slice(0, cap).sort(),
        'the oldest of each line, as many as its cap',
      );
    }
    assert.ok(
      woken.every((row) => row.slot),
      'each woken delivery holds a slot',
    );
    assert.equal(new Set(woken.map((row) => row.tx)).size, 1, 'both lines woken by one transaction');
    const jobs = await jobRows(h);
    const queued = new Set(jobs.map((job) => job.key));
    assert.ok(
      woken.every((row) => queued.has(row.id)),
      'each woken delivery has its job again',
    );
    assert.equal(rows.filter((row) => row.parked).length, 4, 'the rest wait in their lines');
  });
});

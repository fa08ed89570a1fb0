/**
 * kill -9 in the middle of a batch: every delivery arrives at least once
 * after a new worker starts, within about a minute (here: a heartbeat of 200 ms and staleAfter
 * of 1 s instead of 10 s and 45 s), and only deliveries in flight at the crash arrive twice.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase } from '../helpers/database.ts';
import { startReceiver, type Receiver } from './delivery/receiver.ts';
import { deliveryRow, endpoint, harness, jobRows, send, type Harness } from './helpers.ts';
import { eventually } from '../helpers/poll.ts';
import { spawnWorker } from './processes.ts';

const db = await createTestDatabase();
const h: Harness = harness(db);
const CONCURRENCY = 4;
const ENV = {
  APP_WEBHOOKS__CONCURRENCY: String(CONCURRENCY),
  APP_WORKER__POLL_INTERVAL: '100ms',
  APP_WORKER__HEARTBEAT: '200ms',
  APP_WORKER__STALE_AFTER: '1s',
};

describe('crash recovery', () => {
  let receiver: Receiver;
  after(() => receiver?.close());

  it('SIGKILL mid-batch, then a new worker: every delivery is received at least once, duplicates only for those in flight', async () => {
    const received = new Map<string, number>();
    receiver = await startReceiver((req, res) => {
      const id = String(req.headers['webhook-id']);
      received.set(id, (received.get(id) ?? 0) + 1);
      setTimeout(() => res.end('ok'), 300);
    });
    const endpoints = await Promise.all([1, 2, 3, 4].map(() => endpoint(h, `${receiver.origin}/`)));
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) for (const ep of endpoints) ids.push(...(await send(h, ep, 'order.created', { i })));
    assert.equal(ids.length, 24);

    const first = spawnWorker(db.url, ENV);
    await first.waitFor(/worker started/);
    await eventually(() => received.size >= CONCURRENCY + 2, 15_000, 'part of the batch delivered');
    first.child.kill('SIGKILL');
    const killed = await first.exited;
    assert.equal(killed.signal, 'SIGKILL');
    const seenAtCrash = new Set(received.keys());
    assert.ok(seenAtCrash.size < ids.length, 'the crash came mid-batch');

    const second = spawnWorker(db.url, ENV);
    await second.waitFor(/worker started/);
    await eventually(() => ids.every((id) => received.has(id)), 60_000, 'every delivery to arrive');
    assert.match(second.output(), /presumed dead/, "the new worker recovered the killed worker's jobs");

    for (const id of ids) {
      const row = await eventually(
        async () => {
          const current = await deliveryRow(h, id);
          return current?.status === 'done' ? current : undefined;
        },
        10_000,
        `delivery ${id} recorded done`,
      );
      assert.equal(row.status, 'done');
    }
    const twice = [...received].filter(([, count]) => count > 1).map(([id]) => id);
    assert.ok(
      twice.length <= CONCURRENCY,
      `at most the ${CONCURRENCY} deliveries in flight arrive twice, got ${twice.length}`,
    );
    for (const id of twice) assert.ok(seenAtCrash.has(id), `${id} arrived twice but was not in flight at the crash`);
    await eventually(async () => (await jobRows(h)).length === 0, 10_000, 'no job left in the queue');

    second.child.kill('SIGTERM');
    assert.equal((await second.exited).code, 0, second.output());
  });
});

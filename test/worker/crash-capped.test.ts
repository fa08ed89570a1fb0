/**
 * kill -9 while an endpoint's attempts are in flight on the quick path (run rows, migrations/029),
 * then a new worker: the crashed run rows must not hold the endpoint's slots for good. When the
 * deliveries' jobs run again, the crashed rows, older than half a second, hold the endpoint to
 * `webhooks.endpointConcurrency` and outnumber it, so each delivery parks; the recovery sweep then
 * gives their slots back and wakes them, and every delivery arrives.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createTestDatabase } from '../helpers/database.ts';
import { eventually } from '../helpers/poll.ts';
import { startHoldingReceiver, type Receiver } from './delivery/receiver.ts';
import { deliveryRow, endpoint, harness, send, type Harness } from './helpers.ts';
import { spawnWorker } from './processes.ts';

const db = await createTestDatabase();
const h: Harness = harness(db);
const ENV = {
  APP_WEBHOOKS__ENDPOINT_CONCURRENCY: '2',
  APP_WORKER__POLL_INTERVAL: '100ms',
  APP_WORKER__HEARTBEAT: '200ms',
  APP_WORKER__STALE_AFTER: '1s',
};

describe('crash recovery on the quick path', () => {
  let receiver: Receiver;
  after(() => receiver?.close());

  it('SIGKILL with more attempts in flight than the endpoint cap: after the restart every delivery arrives', async () => {
    const target = await startHoldingReceiver(false);
    const { held, arrived } = target;
    receiver = target.receiver;
    const ep = await endpoint(h, `${receiver.origin}/`);
    const first = spawnWorker(db.url, ENV);
    await first.waitFor(/worker started/);

    // answered at once: the endpoint becomes known to answer quickly, and is claimed without its gate
    const warm = (await Promise.all([1, 2, 3].map(() => send(h, ep)))).flat();
    await eventually(() => warm.every((id) => arrived.has(id)), 15_000, 'the first deliveries');
    await eventually(
      async () =>
        (await h.sql`select 1 from app_endpoint_gate where endpoint_id = ${ep.id} and fast_until > now()`).length ===
          1 || undefined,
      10_000,
      'the endpoint known to answer quickly',
    );

    target.holding = true;
    const ids = (await Promise.all([1, 2, 3, 4, 5].map(() => send(h, ep)))).flat();
    await eventually(() => held.size === ids.length, 15_000, 'five attempts in flight');
    const [{ runs }] = await h.sql<{ runs: number }[]>`
      select count(*)::int as runs from app_delivery_runs where endpoint_id = ${ep.id}`;
    assert.equal(runs, ids.length, 'all five on the quick path (a run row each)');
    first.child.kill('SIGKILL');
    await first.exited;
    target.holding = false;

    const second = spawnWorker(db.url, ENV);
    await second.waitFor(/worker started/);
    await eventually(() => ids.every((id) => arrived.has(id)), 30_000, 'every delivery to arrive after the restart');
    for (const id of ids) {
      const row = await eventually(
        async () => ((await deliveryRow(h, id))?.status === 'done' ? true : undefined),
        10_000,
        `delivery ${id} recorded done`,
      );
      assert.equal(row, true);
    }
    const [{ left }] = await h.sql<{ left: number }[]>`
      select count(*)::int as left from app_delivery_runs where endpoint_id = ${ep.id}`;
    assert.equal(left, 0, 'no run row left holding a slot');
    second.child.kill('SIGTERM');
    assert.equal((await second.exited).code, 0, second.output());
  });
});

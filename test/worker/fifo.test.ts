/**
 * FIFO endpoints: `ordering: "fifo"` delivers an endpoint's events one at a
 * time in emit order; the next is not sent until the previous is done or dead, retries included,
 * whatever the number of workers.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { retryDelivery } from '../../shared/webhooks/deliveries/index.ts';
import { updateEndpoint } from '../../shared/webhooks/endpoints/index.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { startReceiver, type Receiver } from './delivery/receiver.ts';
import { endpoint, harness, send, settled, slotsOf, worker } from './helpers.ts';
import { eventually } from '../helpers/poll.ts';
import { OPERATOR } from '../../shared/access/actor.ts';

const db = await createTestDatabase();
const receivers: Receiver[] = [];
after(async () => {
  for (const receiver of receivers) await receiver.close();
});

/** A receiver that records the `n` of each event it gets and fails event `failing` `times` times. */
async function orderedReceiver(failing: number, times: number) {
  const arrivals: number[] = [];
  let failed = 0;
  let inFlight = 0;
  let most = 0;
  const receiver = await startReceiver((_req, res, body) => {
    inFlight += 1;
    most = Math.max(most, inFlight);
    const n = (JSON.parse(body.toString()) as { data: { n: number } }).data.n;
    arrivals.push(n);
    // answer on the next turn, so that a second request could overlap if the line let it
    setImmediate(() => {
      inFlight -= 1;
      if (n === failing && failed < times) {
        failed += 1;
        res.statusCode = 500;
        res.end('not now');
      } else {
        res.end('ok');
      }
    });
  });
  receivers.push(receiver);
  return { receiver, arrivals, most: () => most };
}

describe('FIFO endpoints', () => {
  it('a receiver that fails the 3rd event twice gets 1, 2, 3, 3, 3, 4, 5 … 10 in that order, from two workers', async () => {
    const h = harness(db, { webhooks: { maxAttempts: 5 } });
    const { receiver, arrivals, most } = await orderedReceiver(3, 2);
    const made = await endpoint(h, `${receiver.origin}/ordered`, { ordering: 'fifo' });
    assert.equal(made.ordering, 'fifo');
    const ids: string[] = [];
    for (let n = 1; n <= 10; n++) ids.push(...(await send(h, made, 'order.created', { n })));
    await worker(h);
    await worker(h);
    for (const id of ids) await settled(h, id, ['done', 'dead'], 20_000);
    assert.deepEqual(arrivals, [1, 2, 3, 3, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert.equal(most(), 1, 'one request at a time');
    const gate = await slotsOf(db, made.id);
    assert.deepEqual(gate, { running: 0, waiting: 0 });
  });

  it('a dead delivery does not hold the line: the ones behind it go on once it is dead', async () => {
    const h = harness(db, { webhooks: { maxAttempts: 2 } });
    const { receiver, arrivals } = await orderedReceiver(2, 10);
    const made = await endpoint(h, `${receiver.origin}/dead-head`, { ordering: 'fifo' });
    const ids: string[] = [];
    for (let n = 1; n <= 4; n++) ids.push(...(await send(h, made, 'order.created', { n })));
    await worker(h);
    const statuses = [];
    for (const id of ids) statuses.push((await settled(h, id, ['done', 'dead'], 20_000)).status);
    assert.deepEqual(statuses, ['done', 'dead', 'done', 'done']);
    assert.deepEqual(arrivals, [1, 2, 2, 3, 4]);
  });

  it('events emitted while the worker runs keep their order, and switching the endpoint to --no-fifo lets the line go in parallel', async () => {
    // requests are held until the test answers them: attempts are not cut meanwhile
    const h = harness(db, { webhooks: { timeout: '10s' } });
    const gate: Array<() => void> = [];
    const arrivals: number[] = [];
    const receiver = await startReceiver((_req, res, body) => {
      arrivals.push((JSON.parse(body.toString()) as { data: { n: number } }).data.n);
      gate.push(() => res.end('ok'));
    });
    receivers.push(receiver);
    const made = await endpoint(h, `${receiver.origin}/switch`, { ordering: 'fifo' });
    await worker(h);
    const ids: string[] = [];
    for (let n = 1; n <= 6; n++) ids.push(...(await send(h, made, 'order.created', { n })));
    await eventually(() => gate.length === 1 || undefined, 10_000, 'the first request');
    assert.deepEqual(arrivals, [1], 'one at a time: the rest wait for the first');
    const deps = { config: h.config, sql: h.sql, log: h.log };
    const updated = await updateEndpoint(deps, OPERATOR, made.id, { ordering: 'none' });
    assert.equal(updated.ordering, 'none');
    await eventually(() => gate.length >= 4 || undefined, 10_000, 'the line to go in parallel');
    for (let answered = 0; answered < 6; answered++) {
      await eventually(() => gate.length > answered || undefined, 10_000, `request ${answered + 1}`);
      gate[answered]();
    }
    for (const id of ids) assert.equal((await settled(h, id)).status, 'done');
  });

  it('a dead delivery replayed later goes to the back of the line', async () => {
    const h = harness(db, { webhooks: { maxAttempts: 1 } });
    const arrivals: number[] = [];
    const held: Array<() => void> = [];
    let failFirst = true;
    const receiver = await startReceiver((_req, res, body) => {
      const n = (JSON.parse(body.toString()) as { data: { n: number } }).data.n;
      arrivals.push(n);
      if (n === 1 && failFirst) {
        failFirst = false;
        res.statusCode = 500;
        res.end('no');
      } else if (n === 2) held.push(() => res.end('ok'));
      else res.end('ok');
    });
    receivers.push(receiver);
    const made = await endpoint(h, `${receiver.origin}/replay`, { ordering: 'fifo' });
    await worker(h);
    const [first] = await send(h, made, 'order.created', { n: 1 });
    assert.equal((await settled(h, first)).status, 'dead');
    const [second] = await send(h, made, 'order.created', { n: 2 });
    const [third] = await send(h, made, 'order.created', { n: 3 });
    await eventually(() => held.length === 1 || undefined, 10_000, 'the second event at the receiver');
    await retryDelivery({ config: h.config, sql: h.sql, log: h.log }, OPERATOR, first);
    held[0]();
    for (const id of [second, third, first]) assert.equal((await settled(h, id)).status, 'done');
    assert.deepEqual(arrivals, [1, 2, 3, 1], 'the replay arrives after what was emitted before it was replayed');
  });

  it('ordering is checked (none, fifo or null)', async () => {
    const h = harness(db);
    await assert.rejects(
      endpoint(h, 'http://127.0.0.1:9/x', { ordering: 'lifo' as never }),
      (error: { code: string }) => error.code === 'APP_WEBHOOK_ORDERING_INVALID',
    );
    const made = await endpoint(h, 'http://127.0.0.1:9/x');
    assert.equal(made.ordering, 'none');
    const deps = { config: h.config, sql: h.sql, log: h.log };
    assert.equal((await updateEndpoint(deps, OPERATOR, made.id, { ordering: 'fifo' })).ordering, 'fifo');
    assert.equal((await updateEndpoint(deps, OPERATOR, made.id, { ordering: null })).ordering, 'none');
  });
});

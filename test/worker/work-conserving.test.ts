/**
 * The endpoint cap is work-conserving (migrations/022, 024): an endpoint known to answer quickly
 * is not held to `webhooks.endpointConcurrency`, so alone with work it has more in flight; a slow
 * one (an attempt took half a second or more) stays at its cap even alone. Who is held, case by
 * case: test/shared/webhooks/deliveries/cap-rules.test.ts; a hung endpoint beside a healthy one:
 * fairness.test.ts.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, describe, it } from 'node:test';
import { createTestDatabase } from '../helpers/database.ts';
import { startReceiver, type Receiver } from './delivery/receiver.ts';
import { endpoint, harness, send, worker } from './helpers.ts';
import { eventually } from '../helpers/poll.ts';

const db = await createTestDatabase();
const receivers: Receiver[] = [];
after(async () => {
  for (const receiver of receivers) await receiver.close();
});

/**
 * A receiver that answers only when told (once `seen.holding`; before, at once), counting the
 * requests it holds at once.
 */
async function heldReceiver() {
  const held: ServerResponse[] = [];
  let inFlight = 0;
  const seen = { most: 0, holding: true };
  const receiver = await startReceiver((_req, res) => {
    if (!seen.holding) {
      res.end('ok');
      return;
    }
    inFlight += 1;
    seen.most = Math.max(seen.most, inFlight);
    held.push(res);
    res.on('close', () => {
      inFlight -= 1;
    });
  });
  receivers.push(receiver);
  const answerAll = () => {
    for (const res of held.splice(0)) res.end('ok');
  };
  return { receiver, held, seen, answerAll };
}

const statuses = async (ids: readonly string[]) =>
  (
    await db.sql<{ status: string }[]>`select status from app_webhook_deliveries where id = any(${ids as string[]})`
  ).map((row) => row.status);

describe('a work-conserving endpoint cap', () => {
  it('an endpoint alone with work, once it has answered quickly, has more than its cap in flight; nothing of it is parked', async () => {
    // held requests are not cut off (the fast configuration's 1 s) while the eight arrive on a loaded machine
    const h = harness(db, { webhooks: { concurrency: 16, endpointConcurrency: 2, timeout: '10s' } });
    const lone = await heldReceiver();
    const made = await endpoint(h, `${lone.receiver.origin}/alone`);
    // a first delivery answered at once by the receiver itself (a test that answered it would be as
    // late as its polling on a loaded machine): the endpoint is known to answer quickly
    lone.seen.holding = false;
    const first = await send(h, made, 'order.created', { first: true });
    const answering = await worker(h);
    await eventually(async () => (await statuses(first))[0] === 'done' || undefined, 10_000, 'the first delivery done');
    await answering.stop();
    lone.seen.holding = true;
    // the eight are queued before a worker takes them, so that they are claimed together: an attempt
    // in flight for half a second marks the endpoint slow, and on a loaded machine emits sent one by
    // one to a running worker may take longer than that
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push(...(await send(h, made, 'order.created', { i })));
    await worker(h);
    await eventually(() => lone.held.length >= 8 || undefined, 10_000, 'all eight in flight at once');
    assert.equal(lone.seen.most, 8, 'eight in flight against a cap of two: nobody else was waiting');
    const [{ parked }] = await db.sql<
      { parked: number }[]
    >`select count(*)::int as parked from app_webhook_deliveries where id = any(${ids}) and seq is not null`;
    assert.equal(parked, 0, 'none of them waited parked');
    lone.answerAll();
    await eventually(
      async () => (await statuses(ids)).every((status) => status === 'done') || undefined,
      10_000,
      'all done',
    );
  });

  it('a slow endpoint (an attempt of half a second or more) stays at its cap even alone', async () => {
    const h = harness(db, { webhooks: { concurrency: 16, endpointConcurrency: 2, timeout: '5s' } });
    let inFlight = 0;
    let most = 0;
    const slow = await startReceiver((_req, res) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      res.on('close', () => {
        inFlight -= 1;
      });
      // the receiver's own slowness, not a wait of the test: well past half a second, so that what a
      // loaded worker takes out of an attempt for its own delays (lateness.ts) leaves it slow
      setTimeout(() => res.end('ok'), 1200);
    });
    receivers.push(slow);
    const made = await endpoint(h, `${slow.origin}/slow`);
    const first = await send(h, made, 'order.created', { n: 0 });
    await worker(h);
    await eventually(
      async () => (await statuses(first))[0] === 'done' || undefined,
      10_000,
      'the first, slow, delivery done',
    );
    const [gate] = await db.sql<
      { slow: boolean }[]
    >`select slow_until > now() as slow from app_endpoint_gate where endpoint_id = ${made.id}`;
    assert.equal(gate.slow, true, 'its 1.2 s attempt marked it slow');
    most = 0;
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(...(await send(h, made, 'order.created', { i })));
    await eventually(
      async () => (await statuses(ids)).every((status) => status === 'done') || undefined,
      15_000,
      'all six done',
    );
    assert.ok(most <= 2, `at most its cap of two in flight once slow (saw ${most})`);
  });

  it('an attempt slow only because the worker itself was held up does not mark its endpoint slow; the attempt keeps its whole duration', async () => {
    const h = harness(db, { webhooks: { concurrency: 16, endpointConcurrency: 2 } });
    // The receiver lives in the worker's process here: holding the event loop before it answers
    // holds the worker up as a busy process (starting, or short of cores) would, while the
    // receiver itself is quick once it runs.
    const quick = await startReceiver((_req, res) => {
      const until = performance.now() + 700;
      while (performance.now() < until) {
        // the whole process held up: no timer, no socket of the worker's runs meanwhile
      }
      res.end('ok');
    });
    receivers.push(quick);
    const made = await endpoint(h, `${quick.origin}/held-up`);
    const first = await send(h, made, 'order.created', { n: 0 });
    await worker(h);
    await eventually(async () => (await statuses(first))[0] === 'done' || undefined, 10_000, 'the delivery done');
    const [attempt] = await db.sql<
      { duration_ms: number }[]
    >`select duration_ms from app_webhook_attempts where delivery_id = ${first[0]}`;
    assert.ok(
      attempt.duration_ms >= 650,
      `the attempt's duration is what the worker timed (${attempt.duration_ms} ms)`,
    );
    const [gate] = await db.sql<
      { slow: boolean | null; fast: boolean | null }[]
    >`select slow_until > now() as slow, fast_until > now() as fast from app_endpoint_gate where endpoint_id = ${made.id}`;
    assert.notEqual(gate.slow, true, "the worker's own delay was not taken for the receiver's");
    assert.equal(gate.fast, true, 'the receiver answered quickly once it ran: known to answer quickly');
  });
});

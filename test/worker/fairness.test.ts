/**
 * Fairness between endpoints: an endpoint not known to answer quickly is held to
 * `webhooks.endpointConcurrency` deliveries in flight across every worker, and the deliveries over
 * the cap are parked without holding a worker slot, so a receiver that never answers cannot hold
 * up a healthy one, first attempts or retries (who is held:
 * test/shared/webhooks/deliveries/cap-rules.test.ts; a quick endpoint alone: work-conserving.test.ts).
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, describe, it } from 'node:test';
import { createTestDatabase } from '../helpers/database.ts';
import { startReceiver, type Receiver } from './delivery/receiver.ts';
import { endpoint, harness, send, slotsOf, worker } from './helpers.ts';
import { eventually } from '../helpers/poll.ts';

const db = await createTestDatabase();
const receivers: Receiver[] = [];
after(async () => {
  for (const receiver of receivers) await receiver.close();
});

/** A receiver that never answers: it counts the requests it holds open at once. */
async function silentReceiver() {
  const open = new Set<ServerResponse>();
  const seen = { most: 0 };
  const receiver = await startReceiver((_req, res) => {
    open.add(res);
    seen.most = Math.max(seen.most, open.size);
    res.on('close', () => open.delete(res));
  });
  receivers.push(receiver);
  return { receiver, seen };
}

const doneCount = async (ids: readonly string[]) => {
  const [row] = await db.sql<
    { n: number }[]
  >`select count(*)::int as n from app_webhook_deliveries where id = any(${ids as string[]}) and status = 'done'`;
  return row.n;
};

describe('fairness between endpoints', () => {
  it('500 deliveries to a receiver that never answers, queued ahead, hold up none of 50 to a healthy one: all 50 are done long before the 500 could have gone first, with one worker running 32 at once', async (t) => {
    // 32 at once (a quarter of the default: the fewer a worker runs at once, the longer a backlog
    // ahead would hold the healthy ones up, so the two are told apart best) and the default
    // endpoint cap (4); attempts cut at webhooks.timeout (1 s),
    // so the silent endpoint's retries come back during the test and compete too
    const h = harness(db, { webhooks: { concurrency: 32, maxAttempts: 8 } });
    assert.equal(h.config.webhooks.timeout, 1_000, 'attempts are cut at 1 s');
    assert.equal(h.config.webhooks.endpointConcurrency, 4, 'the default cap');
    const silent = await silentReceiver();
    const healthy = await startReceiver((_req, res) => res.end('ok'));
    receivers.push(healthy);
    const slow = await endpoint(h, `${silent.receiver.origin}/never`);
    const fine = await endpoint(h, `${healthy.origin}/fine`);
    for (let i = 0; i < 500; i += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, k) => send(h, slow, 'order.created', { i: i + k })));
    }
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) ids.push(...(await send(h, fine, 'order.created', { i })));

    // Held up, the healthy deliveries would wait for the 500 ahead of them to be cut at 1 s, 32 at
    // a time: about 16 s. Fair, they take milliseconds on a quiet machine; the deadline leaves a
    // busy one room and still tells the two apart.
    const HELD_UP_MS = Math.ceil(500 / 32) * 1_000;
    const deadline = HELD_UP_MS / 2;
    const started = Date.now();
    await worker(h);
    await eventually(
      async () => (await doneCount(ids)) === 50 || undefined,
      deadline,
      'every healthy delivery done well before the silent backlog could have gone first',
    );
    const took = Date.now() - started;
    assert.equal(healthy.requests.length, 50);
    assert.ok(
      silent.seen.most <= 4,
      `the silent endpoint never had more than its cap in flight (saw ${silent.seen.most})`,
    );
    const gate = await slotsOf(db, slow.id);
    assert.ok(
      gate.running <= 4 && gate.waiting > 400,
      `the rest of the silent endpoint's deliveries wait parked (${JSON.stringify(gate)})`,
    );
    // a parked delivery's job ends: it takes no worker slot. The park commits inside the job and
    // graphile-worker deletes the job once it returns (completions batched), so a job parked last
    // may still be there a moment; on a loaded machine that moment outlasted the healthy 50.
    await eventually(
      async () => {
        const [jobs] = await db.sql<{ n: number }[]>`
          select count(*)::int as n from graphile_worker.jobs where task_identifier = 'app/webhook' and key in (
            select id from app_webhook_deliveries where endpoint_id = ${slow.id} and parked_at is not null)`;
        return jobs.n === 0 || undefined;
      },
      5_000,
      'no parked delivery to have a job: it takes no worker slot',
    );
    t.diagnostic(`the healthy endpoint's 50 were done ${took} ms after the worker started`);

    // retries: once the silent endpoint's first attempts are cut (1 s) their retries come due;
    // they go through the same gate and hold up no first attempt to the healthy endpoint
    await eventually(
      async () => {
        const [row] = await db.sql<
          { n: number }[]
        >`select count(*)::int as n from app_webhook_attempts a join app_webhook_deliveries d on d.id = a.delivery_id where d.endpoint_id = ${slow.id}`;
        return row.n >= 8 || undefined;
      },
      10_000,
      "the silent endpoint's attempts to be cut and retried",
    );
    const later: string[] = [];
    for (let i = 0; i < 50; i++) later.push(...(await send(h, fine, 'order.created', { i: 50 + i })));
    const again = Date.now();
    await eventually(
      async () => (await doneCount(later)) === 50 || undefined,
      deadline,
      'every later healthy delivery done while retries are due',
    );
    t.diagnostic(
      `50 more were done ${Date.now() - again} ms after they were emitted, with the silent endpoint's retries due`,
    );
    assert.ok(silent.seen.most <= 4, `still never more than the cap in flight (saw ${silent.seen.most})`);
  });

  it('two workers together never exceed the cap of an endpoint that answers slowly, and every delivery over it arrives once a slot frees', async () => {
    const h = harness(db, { webhooks: { concurrency: 8, endpointConcurrency: 2, timeout: '10s' } });
    let inFlight = 0;
    let most = 0;
    // each answer takes a second (the receiver's own slowness, not a wait of the test): twice the
    // time that makes an attempt slow, so that a loaded machine's delays in this process, taken out
    // of each attempt's time (worker/delivery/lateness.ts), never make the endpoint look quick and
    // lift its cap
    const receiver = await startReceiver((_req, res) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      res.on('close', () => {
        inFlight -= 1;
      });
      setTimeout(() => res.end('ok'), 1000);
    });
    receivers.push(receiver);
    const made = await endpoint(h, `${receiver.origin}/capped`);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(...(await send(h, made, 'order.created', { i })));
    await worker(h);
    await worker(h);
    await eventually(async () => (await doneCount(ids)) === 12 || undefined, 30_000, 'every delivery done');
    assert.ok(most <= 2, `at most 2 in flight at once across both workers (saw ${most})`);
    assert.equal(receiver.requests.length, 12, 'each delivery arrived once');
    const gate = await slotsOf(db, made.id);
    assert.deepEqual(gate, { running: 0, waiting: 0 }, 'every slot given back');
  });
});

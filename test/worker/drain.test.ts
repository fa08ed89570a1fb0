/**
 * Graceful drain of the worker process (docs/operations.md "Shutdown": a job runner stops claiming jobs,
 * finishes those it holds and records their outcomes).
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase } from '../helpers/database.ts';
import { startReceiver, type Receiver } from './delivery/receiver.ts';
import {
  attemptRows,
  deliveryRow,
  endpoint,
  harness,
  jobRows,
  runOnce,
  send,
  settled,
  type Harness,
} from './helpers.ts';
import { eventually } from '../helpers/poll.ts';
import { spawnWorker } from './processes.ts';

const db = await createTestDatabase();
const h: Harness = harness(db, { webhooks: { timeout: '5s', backoff: { base: '100ms' } } });
const ENV = { APP_WEBHOOKS__CONCURRENCY: '1', APP_WORKER__POLL_INTERVAL: '50ms', APP_WORKER__HEARTBEAT: '200ms' };

/** The worker's JSON log line whose message starts with `start`. */
function logLine(output: string, start: string): { msg: string; jobs?: number } {
  const line = output
    .split('\n')
    .filter((text) => text.startsWith('{'))
    .map((text) => JSON.parse(text) as { msg: string; jobs?: number })
    .find((entry) => entry.msg.startsWith(start));
  assert.ok(line, `a line "${start}…" in:\n${output}`);
  return line;
}

describe('worker process drain', () => {
  const receivers: Receiver[] = [];
  after(async () => {
    for (const r of receivers) await r.close();
  });

  it('SIGTERM mid-delivery: says how many jobs it holds, stops claiming, finishes the delivery in hand, records it and exits 0', async () => {
    let answeredAt = 0;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    // the receiver holds its answer until the worker has begun draining: the delivery is in hand when the signal lands
    const receiver = await startReceiver((_req, res) => {
      void held.then(() => {
        answeredAt = Date.now();
        res.end('ok');
      });
    });
    receivers.push(receiver);
    const ep = await endpoint(h, `${receiver.origin}/`);
    const ids = [...(await send(h, ep)), ...(await send(h, ep)), ...(await send(h, ep))];
    const worker = spawnWorker(db.url, ENV);
    await worker.waitFor(/worker started/);
    await eventually(() => receiver.requests.length >= 1, 10_000, 'a delivery in flight');
    worker.child.kill('SIGTERM');
    await worker.waitFor(/draining/);
    // one started (concurrency 1); the two others fetched with it are not in hand: they go back
    const draining = logLine(worker.output(), 'draining');
    assert.equal(draining.msg, 'draining: no new jobs; finishing the 1 job in hand');
    assert.equal(draining.jobs, 1);
    release();
    const exit = await worker.exited;
    assert.equal(exit.code, 0, worker.output());
    const errors = worker
      .output()
      .split('\n')
      .filter((line) => /"level":(50|60)/.test(line));
    assert.deepEqual(errors, [], 'a clean stop logs no error');
    assert.ok(answeredAt > 0 && exit.at >= answeredAt, "the process waited for the receiver's answer");
    assert.equal(receiver.requests.length, 1, 'nothing new was claimed after the signal');
    const inFlight = receiver.requests[0].headers['webhook-id'] as string;
    const delivered = (await deliveryRow(h, inFlight))!;
    assert.equal(delivered.status, 'done', 'its outcome was recorded');
    assert.equal((await attemptRows(h, inFlight)).length, 1);
    for (const id of ids.filter((other) => other !== inFlight)) {
      const [job] = await jobRows(h, id);
      assert.equal(job.locked_by, null, 'jobs held but not started went back to the queue');
      assert.equal(job.attempts, 0);
      assert.equal((await deliveryRow(h, id))!.status, 'pending');
    }
    const beats = await h.sql`select 1 from app_worker_heartbeats`;
    assert.equal(beats.length, 0, 'a clean stop removes the heartbeat');
    await runOnce(h);
    for (const id of ids) assert.equal((await deliveryRow(h, id))!.status, 'done');
  });

  it('a second signal forces the stop (exit 1), saying how many jobs it abandons; the abandoned delivery is armed again and made later', async () => {
    // the first delivery is never answered while its worker lives; the redelivery is answered at once
    let calls = 0;
    const receiver = await startReceiver((_req, res) => {
      calls += 1;
      if (calls > 1) res.end('ok');
    });
    receivers.push(receiver);
    const ep = await endpoint(h, `${receiver.origin}/`);
    const [id] = await send(h, ep);
    const worker = spawnWorker(db.url, ENV);
    await worker.waitFor(/worker started/);
    await eventually(() => receiver.requests.length >= 1, 10_000, 'the delivery in flight');
    worker.child.kill('SIGTERM');
    await worker.waitFor(/draining/);
    worker.child.kill('SIGINT');
    const exit = await worker.exited;
    assert.equal(exit.code, 1, worker.output());
    const abandoning = logLine(worker.output(), 'second signal');
    assert.equal(abandoning.msg, 'second signal: abandoning the 1 job in hand');
    assert.equal(abandoning.jobs, 1);
    assert.notEqual((await deliveryRow(h, id))!.status, 'done');
    const [job] = await jobRows(h, id);
    assert.equal(job.locked_by, null, 'the forced stop released the job it abandoned');
    assert.equal(job.attempts, 0, 'and armed it again');
    const again = spawnWorker(db.url, ENV);
    await again.waitFor(/worker started/);
    await settled(h, id, ['done'], 15_000);
    again.child.kill('SIGTERM');
    assert.equal((await again.exited).code, 0);
  });
});

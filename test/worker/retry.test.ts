/**
 * Backoff and dead letters (`webhooks.backoff`, `webhooks.maxAttempts`; attempts exhausted ->
 * dead letter queue, reason kept), with a fast
 * schedule and a running worker.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase } from '../helpers/database.ts';
import { startReceiver, type Receiver } from './delivery/receiver.ts';
import { attemptRows, endpoint, harness, jobRows, send, settled, worker, type Harness } from './helpers.ts';

const db = await createTestDatabase();
const BASE = 300;
const FACTOR = 2;
const JITTER = 0.2;
const h: Harness = harness(db, {
  webhooks: { maxAttempts: 4, backoff: { base: `${BASE}ms`, factor: FACTOR, max: '10s', jitter: JITTER } },
});

describe('retries with backoff', () => {
  const receivers: Receiver[] = [];
  after(async () => {
    for (const r of receivers) await r.close();
  });

  it('retry timings follow webhooks.backoff within its jitter, and exhausted attempts make the delivery dead with the reason kept', async () => {
    const receiver = await startReceiver((_req, res) => {
      res.statusCode = 500;
      res.end('down for maintenance');
    });
    receivers.push(receiver);
    const ep = await endpoint(h, `${receiver.origin}/`);
    const [id] = await send(h, ep);
    await worker(h);
    const delivery = await settled(h, id, ['dead'], 15_000);
    const attempts = await attemptRows(h, id);
    assert.deepEqual(
      attempts.map((a) => a.outcome),
      ['retry', 'retry', 'retry', 'dead'],
    );
    assert.deepEqual(
      attempts.map((a) => a.status),
      [500, 500, 500, 500],
    );
    assert.equal(receiver.requests.length, 4, 'webhooks.maxAttempts attempts, no more');
    for (let i = 1; i < attempts.length; i++) {
      const expected = BASE * FACTOR ** (i - 1);
      const previousEnd = new Date(attempts[i - 1].started_at).getTime() + attempts[i - 1].duration_ms;
      const gap = new Date(attempts[i].started_at).getTime() - previousEnd;
      // The delay is scheduled when the attempt is recorded (just after it ends); the worker
      // then finds the job within its poll interval (25 ms here).
      assert.ok(
        gap >= expected * (1 - JITTER) - 10,
        `attempt ${i + 1} came ${gap} ms after attempt ${i}, earlier than ${expected} ms - ${JITTER * 100} %`,
      );
      assert.ok(
        gap <= expected * (1 + JITTER) + 250,
        `attempt ${i + 1} came ${gap} ms after attempt ${i}, later than ${expected} ms + ${JITTER * 100} %`,
      );
    }
    assert.equal(delivery.status, 'dead');
    assert.match(delivery.last_error!, /^attempts exhausted \(4 of 4\); last: receiver answered 500/);
    assert.equal(delivery.last_status, 500);
    assert.equal(attempts[3].excerpt, 'down for maintenance', "the receiver's answer is kept for the operator");
    // the run that recorded the death may still hold its own job for a moment (it then announces
    // app.delivery.dead); what must not exist is another job waiting to run
    assert.deepEqual(
      (await jobRows(h, id)).filter((job) => job.locked_at === null),
      [],
      'nothing further is queued',
    );
  });

  it('a delivery that fails and then succeeds is done after the retry, with both attempts on record', async () => {
    let calls = 0;
    const receiver = await startReceiver((_req, res) => {
      calls += 1;
      res.statusCode = calls === 1 ? 429 : 204;
      res.setHeader('retry-after', '3600');
      res.end();
    });
    receivers.push(receiver);
    const ep = await endpoint(h, `${receiver.origin}/`);
    const [id] = await send(h, ep);
    await worker(h);
    const delivery = await settled(h, id, ['done'], 5_000);
    assert.equal(delivery.attempts, 2);
    assert.equal(delivery.last_error, null);
    const attempts = await attemptRows(h, id);
    assert.deepEqual(
      attempts.map((a) => [a.attempt, a.status, a.outcome]),
      [
        [1, 429, 'retry'],
        [2, 204, 'done'],
      ],
    );
    const gap = new Date(attempts[1].started_at).getTime() - new Date(attempts[0].started_at).getTime();
    // honoured, the retry would wait an hour; the backoff of these tests is milliseconds
    assert.ok(gap < 600_000, `Retry-After: 3600 is ignored (retried after ${gap} ms)`);
  });
});

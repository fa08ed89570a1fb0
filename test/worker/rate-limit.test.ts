/**
 * Per-endpoint rate limit with two real workers: the receiver never sees more
 * than `rateLimit` requests in any one-second window (one of slack), every delivery arrives, and
 * the waits are not attempts; and a delivery waiting for its start is woken at that start, not
 * found at the queue's next poll. That last rule is checked with the poll ten minutes apart, so
 * that a delivery left to the poll could not arrive within the test at all, whatever the machine's
 * load: no bound on seconds decides it.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { updateEndpoint } from '../../shared/webhooks/endpoints/index.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { startReceiver, type Receiver } from './delivery/receiver.ts';
import { endpoint, harness, send, worker } from './helpers.ts';
import { eventually } from '../helpers/poll.ts';
import { OPERATOR } from '../../shared/access/actor.ts';

const db = await createTestDatabase();
const h = harness(db);
const receivers: Receiver[] = [];
after(async () => {
  for (const receiver of receivers) await receiver.close();
});

describe('per-endpoint rate limit', () => {
  it('two workers deliver 30 events at no more than 5 a second (one of slack), all of them, one attempt each', async (t) => {
    const arrivals: number[] = [];
    const receiver = await startReceiver((_req, res) => {
      arrivals.push(Date.now());
      res.end('ok');
    });
    receivers.push(receiver);
    const made = await endpoint(h, `${receiver.origin}/limited`, { rateLimit: 5 });
    assert.equal(made.rateLimit, 5);
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push(...(await send(h, made, 'tick.tock', { i })));
    await worker(h);
    await worker(h);
    await eventually(
      async () => {
        const [row] = await db.sql<
          { n: number }[]
        >`select count(*)::int as n from app_webhook_deliveries where id = any(${ids}) and status = 'done'`;
        return row.n === 30 || undefined;
      },
      30_000,
      'every delivery done',
    );
    assert.equal(arrivals.length, 30);
    const sorted = [...arrivals].sort((a, b) => a - b);
    t.diagnostic(`arrivals (s after the first): ${sorted.map((at) => ((at - sorted[0]) / 1000).toFixed(2)).join(' ')}`);
    const busiest = Math.max(...sorted.map((start) => sorted.filter((at) => at >= start && at < start + 1000).length));
    assert.ok(busiest <= 6, `at most 5 (+1) in any one-second window, saw ${busiest}`);
    assert.ok(sorted[29] - sorted[0] >= 4000, 'thirty at five a second take at least four seconds');
    const attempts = await db.sql<
      { attempts: number }[]
    >`select attempts from app_webhook_deliveries where id = any(${ids})`;
    assert.ok(
      attempts.every((row) => row.attempts === 1),
      'waiting is not an attempt',
    );
  });

  it('two workers whose queue polls ten minutes apart deliver 30 events at 5 a second, each woken at its reserved start', async (t) => {
    // graphile-worker finds a job scheduled ahead only at its poll: a delivery waiting for its start
    // must be woken at that start (worker/delivery/wake-ups.ts), or it waits the ten minutes
    const polling = harness(db, { worker: { pollInterval: '10m' } });
    const arrivals: number[] = [];
    const receiver = await startReceiver((_req, res) => {
      arrivals.push(Date.now());
      res.end('ok');
    });
    receivers.push(receiver);
    const made = await endpoint(polling, `${receiver.origin}/paced`, { rateLimit: 5 });
    await worker(polling);
    await worker(polling);
    const emitted = Date.now();
    const ids = (
      await Promise.all(Array.from({ length: 30 }, (_, i) => send(polling, made, 'tick.tock', { i })))
    ).flat();
    assert.equal(ids.length, 30);
    const seconds = () => arrivals.map((at) => ((at - emitted) / 1000).toFixed(2)).join(' ');

    // midway, the deliveries still waiting are jobs in the queue, each scheduled for a start of its
    // own: at most the ones starting now are held by a worker, and the starts reserved ahead keep
    // to the rate (the database's times, not this machine's pace)
    await eventually(() => arrivals.length >= 10 || undefined, 60_000, 'ten arrivals');
    const [jobs] = await polling.sql<{ held: number; waiting: number; starts: string[] }[]>`
      select count(*) filter (where locked_at is not null)::int as held,
             count(*) filter (where locked_at is null)::int as waiting,
             coalesce(array_agg(to_char(run_at, 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') order by run_at)
                        filter (where run_at > now() and locked_at is null), '{}') as starts
        from graphile_worker.jobs where key = any(${ids})`;
    assert.ok(jobs.held <= 2, `at most the deliveries starting now are held by a worker: ${JSON.stringify(jobs)}`);
    const ahead = jobs.starts.map((at) => Date.parse(at));
    const busiestAhead = Math.max(
      0,
      ...ahead.map((from) => ahead.filter((at) => at >= from && at < from + 1000).length),
    );
    assert.ok(busiestAhead <= 5, `starts reserved ahead keep to 5 a second: ${jobs.starts.join(' ')}`);

    await eventually(() => arrivals.length >= 30 || undefined, 120_000, '30 arrivals, long before a poll').catch(
      (error: Error) => {
        throw new Error(`${error.message}; arrivals (s after the emit): ${seconds()}`);
      },
    );
    t.diagnostic(`arrivals (s after the emit): ${seconds()}`);
    const sorted = [...arrivals].sort((a, b) => a - b);
    const busiest = Math.max(...sorted.map((start) => sorted.filter((at) => at >= start && at < start + 1000).length));
    assert.ok(busiest <= 6, `at most 5 (+1) in any one-second window, saw ${busiest}: ${seconds()}`);
    await eventually(
      async () => {
        const rows = await polling.sql<
          { attempts: number }[]
        >`select attempts from app_webhook_deliveries where id = any(${ids}) and status = 'done'`;
        return rows.length === 30 && rows.every((row) => row.attempts === 1) ? rows : undefined;
      },
      30_000,
      'every delivery done after one attempt',
    );
    assert.equal(arrivals.length, 30);
  });

  it('a FIFO endpoint under a rate limit delivers in emit order at its rate, each woken at its start with the queue polling ten minutes apart', async (t) => {
    const polling = harness(db, { worker: { pollInterval: '10m' } });
    const arrivals: Array<{ n: number; at: number }> = [];
    const receiver = await startReceiver((_req, res, body) => {
      arrivals.push({ n: (JSON.parse(body.toString()) as { data: { n: number } }).data.n, at: Date.now() });
      res.end('ok');
    });
    receivers.push(receiver);
    const made = await endpoint(polling, `${receiver.origin}/ordered`, { rateLimit: 5, ordering: 'fifo' });
    const ids: string[] = [];
    for (let n = 1; n <= 10; n++) ids.push(...(await send(polling, made, 'order.created', { n })));
    await worker(polling);
    await worker(polling);
    const started = Date.now();
    // a delivery left to the poll would wait ten minutes: all ten arriving at all is the rule
    await eventually(() => arrivals.length >= 10 || undefined, 120_000, 'ten arrivals, long before a poll');
    const seconds = arrivals.map((arrival) => ((arrival.at - started) / 1000).toFixed(2)).join(' ');
    t.diagnostic(`arrivals (s after the workers started): ${seconds}`);
    assert.deepEqual(
      arrivals.map((arrival) => arrival.n),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    );
    const at = arrivals.map((arrival) => arrival.at);
    const busiest = Math.max(...at.map((from) => at.filter((time) => time >= from && time < from + 1000).length));
    assert.ok(busiest <= 6, `at most 5 (+1) in any one-second window, saw ${busiest}: ${seconds}`);
  });

  it('rateLimit is checked (1 to 10000 or null) and can be changed and removed', async () => {
    await assert.rejects(
      endpoint(h, 'http://127.0.0.1:9/x', { rateLimit: 0 }),
      (error: { code: string }) => error.code === 'APP_WEBHOOK_RATE_LIMIT_INVALID',
    );
    const made = await endpoint(h, 'http://127.0.0.1:9/x', { rateLimit: 3 });
    const deps = { config: h.config, sql: h.sql, log: h.log };
    assert.equal((await updateEndpoint(deps, OPERATOR, made.id, { rateLimit: 10 })).rateLimit, 10);
    assert.equal((await updateEndpoint(deps, OPERATOR, made.id, { rateLimit: null })).rateLimit, null);
    await assert.rejects(
      updateEndpoint(deps, OPERATOR, made.id, { rateLimit: 2.5 }),
      (error: { code: string }) => error.code === 'APP_WEBHOOK_RATE_LIMIT_INVALID',
    );
  });
});

/**
 * Per-endpoint rate limit (issue 16, item 2) with two real workers: the receiver never sees more
 * than `rateLimit` requests in any one-second window (one of slack), every delivery arrives, and
 * the waits are not attempts.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { updateEndpoint } from '../../shared/webhooks/endpoints/index.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { startReceiver, type Receiver } from './delivery/receiver.ts';
import { endpoint, eventually, harness, send, worker } from './helpers.ts';
import { OPERATOR } from '../../shared/access/actor.ts';

const db = await createTestDatabase();
const h = harness(db);
const receivers: Receiver[] = [];
after(async () => {
  for (const receiver of receivers) await receiver.close();
});

describe('per-endpoint rate limit', () => {
  it('two workers deliver 30 events at no more than 5 a second (one of slack), all of them, one attempt each', async () => {
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
    await eventually(async () => {
      const [row] = await db.sql<{ n: number }[]>`select count(*)::int as n from app_webhook_deliveries where id = any(${ids}) and status = 'done'`;
      return row.n === 30 || undefined;
    }, 30_000, 'every delivery done');
    assert.equal(arrivals.length, 30);
    const sorted = [...arrivals].sort((a, b) => a - b);
    const busiest = Math.max(...sorted.map((start) => sorted.filter((at) => at >= start && at < start + 1000).length));
    assert.ok(busiest <= 6, `at most 5 (+1) in any one-second window, saw ${busiest}`);
    assert.ok(sorted[29] - sorted[0] >= 4000, 'thirty at five a second take at least four seconds');
    const attempts = await db.sql<{ attempts: number }[]>`select attempts from app_webhook_deliveries where id = any(${ids})`;
    assert.ok(attempts.every((row) => row.attempts === 1), 'waiting is not an attempt');
  });

  it('rateLimit is checked (1 to 10000 or null) and can be changed and removed', async () => {
    await assert.rejects(endpoint(h, 'http://127.0.0.1:9/x', { rateLimit: 0 }), (error: { code: string }) => error.code === 'APP_WEBHOOK_RATE_LIMIT_INVALID');
    const made = await endpoint(h, 'http://127.0.0.1:9/x', { rateLimit: 3 });
    const deps = { config: h.config, sql: h.sql, log: h.log };
    assert.equal((await updateEndpoint(deps, OPERATOR, made.id, { rateLimit: 10 })).rateLimit, 10);
    assert.equal((await updateEndpoint(deps, OPERATOR, made.id, { rateLimit: null })).rateLimit, null);
    await assert.rejects(updateEndpoint(deps, OPERATOR, made.id, { rateLimit: 2.5 }), (error: { code: string }) => error.code === 'APP_WEBHOOK_RATE_LIMIT_INVALID');
  });
});

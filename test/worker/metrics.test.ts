import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { HostLookup } from '../../shared/webhooks/address-rules.ts';
import { serveWorker } from '../../worker/run.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { histogramCount, parseMetrics, sampleValue } from '../helpers/prometheus.ts';
import { startReceiver, type Receiver } from './delivery/receiver.ts';
import { endpoint, harness, send, settled, worker } from './helpers.ts';
import { eventually } from '../helpers/poll.ts';

const db = await createTestDatabase();
const receivers: Receiver[] = [];
after(async () => {
  for (const receiver of receivers) await receiver.close();
});
const receiverAnswering = async (status: number) => {
  const receiver = await startReceiver((_req, res) => {
    res.statusCode = status;
    res.end(`answer ${status}`);
  });
  receivers.push(receiver);
  return receiver;
};

describe('worker metrics', () => {
  it('count each attempt by outcome (done, retry, dead, gone), time the POST, and measure emit to first attempt', async () => {
    const h = harness(db, { webhooks: { maxAttempts: 2 } });
    const handle = await worker(h);
    const [ok, failing, gone] = await Promise.all([
      receiverAnswering(200),
      receiverAnswering(500),
      receiverAnswering(410),
    ]);
    const ids = [
      ...(await send(h, await endpoint(h, `${ok.origin}/ok`))),
      ...(await send(h, await endpoint(h, `${failing.origin}/failing`))),
      ...(await send(h, await endpoint(h, `${gone.origin}/gone`))),
    ];
    const rows = await Promise.all(ids.map((id) => settled(h, id)));
    assert.deepEqual(
      rows.map((row) => row.status),
      ['done', 'dead', 'dead'],
    );

    const text = await handle.metrics.registry.metrics();
    const families = parseMetrics(text);
    assert.equal(sampleValue(families, 'app_deliveries_total', { outcome: 'done' }), 1);
    assert.equal(sampleValue(families, 'app_deliveries_total', { outcome: 'retry' }), 1);
    assert.equal(
      sampleValue(families, 'app_deliveries_total', { outcome: 'dead' }),
      1,
      'the 500 receiver ran out of attempts',
    );
    assert.equal(sampleValue(families, 'app_deliveries_total', { outcome: 'gone' }), 1, 'the 410');
    assert.equal(histogramCount(text, 'app_delivery_duration_seconds', { process: 'worker' }), 4, 'every POST timed');
    assert.equal(histogramCount(text, 'app_delivery_lag_seconds', { process: 'worker' }), 3, 'first attempts only');
    assert.equal(sampleValue(families, 'app_queue_depth'), 0);
    assert.equal(sampleValue(families, 'app_dead_deliveries'), 2);
  });

  it('count a refused address as refused', async () => {
    const strict = harness(db, { webhooks: { allowPrivate: false } });
    const receiver = await receiverAnswering(200);
    const publicOnly: HostLookup = async () => [{ address: '93.184.215.14', family: 4 }];
    const loopback: HostLookup = async () => [{ address: '127.0.0.1', family: 4 }];
    const [id] = await send(
      strict,
      await endpoint(strict, `http://hooks.example.test:${receiver.port}/in`, { lookup: publicOnly }),
    );
    const handle = await worker(strict, { lookup: loopback });
    assert.equal((await settled(strict, id)).status, 'dead');
    assert.equal(
      sampleValue(parseMetrics(await handle.metrics.registry.metrics()), 'app_deliveries_total', {
        outcome: 'refused',
      }),
      1,
    );
  });

  it("are served by the worker's own listener (worker.metricsPort) behind metrics.token, and the listener closes with the worker", async () => {
    const h = harness(db, { worker: { metricsPort: 0 }, metrics: { token: 'worker-scrape' } });
    const served = await serveWorker({ config: h.config, log: h.log });
    const base = `http://127.0.0.1:${served.metricsPort}`;
    try {
      const missing = await fetch(`${base}/metrics`);
      assert.equal(missing.status, 401);
      assert.equal(missing.headers.get('content-type'), 'application/problem+json');
      assert.equal(((await missing.json()) as { code: string }).code, 'APP_UNAUTHENTICATED');
      const wrong = await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer not-it' } });
      assert.equal(wrong.status, 401);
      assert.equal(wrong.headers.get('www-authenticate'), 'Bearer realm="metrics", error="invalid_token"');
      assert.equal(((await wrong.json()) as { code: string }).code, 'APP_TOKEN_INVALID');
      const post = await fetch(`${base}/metrics`, {
        method: 'POST',
        headers: { authorization: 'Bearer worker-scrape' },
      });
      assert.equal(post.status, 405);
      assert.equal(post.headers.get('allow'), 'GET, HEAD');
      assert.equal(((await post.json()) as { code: string }).code, 'APP_METHOD_NOT_ALLOWED');
      const live = await fetch(`${base}/livez`);
      assert.equal(live.status, 200, 'health paths need no token');
      // ready once the new runner's first heartbeat is in
      const ready = await eventually(
        async () => {
          const answer = await fetch(`${base}/readyz`);
          return answer.status === 200
            ? ((await answer.json()) as { status: string; running: boolean; ready: boolean })
            : undefined;
        },
        10_000,
        'the worker ready',
      );
      assert.deepEqual([ready.status, ready.running, ready.ready], ['ok', true, true]);
      const other = await fetch(`${base}/other`, { headers: { authorization: 'Bearer worker-scrape' } });
      assert.equal(other.status, 404);
      assert.equal(other.headers.get('content-type'), 'application/problem+json');
      assert.equal(((await other.json()) as { code: string }).code, 'APP_NOT_FOUND');
      const scrape = await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer worker-scrape' } });
      assert.equal(scrape.status, 200);
      const families = parseMetrics(await scrape.text());
      assert.ok(families.has('app_deliveries_total'));
      assert.ok(families.has('process_resident_memory_bytes'));
    } finally {
      await served.handle.stop();
    }
    await assert.rejects(fetch(`${base}/metrics`), 'closed with the worker');
  });
});

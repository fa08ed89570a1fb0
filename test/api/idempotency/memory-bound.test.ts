/**
 * With `shared.backend: none`, a web process keeps its idempotency records within
 * `shared.maxMemoryBytes` however many keyed emits it answers, and a keyed emit still replays.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { call, closeAll, startApi } from '../webhooks-api/helpers.ts';
import { parseMetrics, sampleValue } from '../../helpers/prometheus.ts';

const BOUND = 32 * 1024;

describe('idempotency records in process memory', () => {
  after(closeAll);
  it('stay within shared.maxMemoryBytes after many keyed emits, the latest replaying', async () => {
    const app = await startApi({ shared: { backend: 'none', maxMemoryBytes: '32kb' } });
    const token = await app.token('admin');
    const endpoint = await call('POST', `${app.api}/webhooks`, {
      token,
      body: { url: 'https://127.0.0.1/bound', events: ['order.*'] },
    });
    assert.equal(endpoint.status, 201, endpoint.text);
    const emit = (n: number) =>
      call('POST', `${app.api}/events`, {
        token,
        body: { type: 'order.created', data: { n, note: 'y'.repeat(200) } },
        headers: { 'Idempotency-Key': `bound-${n}` },
      });
    const figures = async () => {
      const families = parseMetrics(await app.web.metrics.registry.metrics());
      return {
        bytes: sampleValue(families, 'app_shared_memory_bytes') ?? Number.NaN,
        evicted: sampleValue(families, 'app_shared_memory_evictions_total', { kind: 'idem' }) ?? 0,
      };
    };
    let first: Awaited<ReturnType<typeof emit>> | undefined;
    let last: Awaited<ReturnType<typeof emit>> | undefined;
    for (let n = 0; n < 200; n += 1) {
      const answer = await emit(n);
      assert.equal(answer.status, 202, answer.text);
      first ??= answer;
      last = answer;
      const { bytes } = await figures();
      assert.ok(bytes > 0 && bytes <= BOUND, `the store holds ${bytes} bytes after ${n + 1} keyed emits`);
    }
    assert.ok((await figures()).evicted > 0, 'the bound evicted');
    assert.ok(
      app.logs.some((line) => line.includes('shared.maxMemoryBytes')),
      'the eviction was logged',
    );

    const latest = await emit(199);
    assert.equal(latest.status, 202);
    assert.equal(latest.body.externalId, last?.body.externalId);
    assert.equal(latest.headers.get('idempotency-replayed'), 'true', 'the latest key replays');
    const evictedFirst = await emit(0);
    assert.equal(evictedFirst.headers.get('idempotency-replayed'), null, 'the oldest key was evicted: it runs again');
    assert.match(evictedFirst.body.externalId, /^evt_/);
    assert.notEqual(evictedFirst.body.externalId, first?.body.externalId);
  });
});

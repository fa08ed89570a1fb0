/**
 * `app_endpoints_disabled_total{reason}` (shared/webhooks/endpoints/update.ts): each endpoint that
 * goes from enabled to disabled is counted once, by why: `operator` (disable, or a patch with
 * `enabled: false`), `failing` (every attempt failed for `webhooks.disableAfter`, the hourly
 * sweep), `gone` (its receiver answered 410, in the worker). An endpoint disabled already is not
 * counted again, whatever changes its reason.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OPERATOR } from '../../../../shared/access/actor.ts';
import { createMetrics, type Metrics } from '../../../../shared/metrics/registry.ts';
import { disableFailingEndpoints } from '../../../../shared/webhooks/endpoints/auto-disable.ts';
import { disableEndpoint, enableEndpoint, updateEndpoint } from '../../../../shared/webhooks/endpoints/index.ts';
import { createTestDatabase } from '../../../helpers/database.ts';
import { eventually } from '../../../helpers/poll.ts';
import { parseMetrics, sampleValue } from '../../../helpers/prometheus.ts';
import { startReceiver } from '../../../worker/delivery/receiver.ts';
import { endpoint, harness, send, worker } from '../../../worker/helpers.ts';

const DAY = 86_400_000;
const disabled = async (metrics: Metrics, reason: string) =>
  sampleValue(parseMetrics(await metrics.registry.metrics()), 'app_endpoints_disabled_total', { reason });

describe('app_endpoints_disabled_total', () => {
  it('counts an operator disabling an enabled endpoint once, not a new reason given to a disabled one', async () => {
    const db = await createTestDatabase();
    const h = harness(db);
    const metrics = createMetrics({ process: 'web' });
    const deps = { config: h.config, sql: h.sql, log: h.log, metrics };
    assert.equal(await disabled(metrics, 'operator'), 0, 'exported from the start');
    const made = await endpoint(h, 'http://127.0.0.1:9/operator');
    await disableEndpoint(deps, OPERATOR, made.id, { reason: 'maintenance' });
    await disableEndpoint(deps, OPERATOR, made.id, { reason: 'still maintenance' });
    await updateEndpoint(deps, OPERATOR, made.id, { disabledReason: 'longer maintenance' });
    assert.equal(await disabled(metrics, 'operator'), 1);
    await enableEndpoint(deps, OPERATOR, made.id);
    await updateEndpoint(deps, OPERATOR, made.id, { enabled: false });
    assert.equal(await disabled(metrics, 'operator'), 2, 'enabled, then disabled again');
    assert.equal(await disabled(metrics, 'failing'), undefined, 'a web process never disables for failing');
  });

  it('counts the endpoints the hourly sweep disables for failing through webhooks.disableAfter', async () => {
    const db = await createTestDatabase();
    const h = harness(db);
    const metrics = createMetrics({ process: 'worker' });
    const deps = { config: h.config, sql: h.sql, log: h.log, metrics };
    const now = Math.floor(Date.now() / 1000) * 1000;
    for (const path of ['/failing-1', '/failing-2']) {
      const [delivery] = await send(h, await endpoint(h, `http://127.0.0.1:9${path}`));
      for (let attempt = 1; attempt <= 25; attempt += 1)
        await db.sql`
          insert into app_webhook_attempts (delivery_id, attempt, started_at, duration_ms, status, outcome)
          values (${delivery}, ${attempt}, ${new Date(now - 6 * DAY + attempt * 1000)}, 5, 500, 'retry')`;
    }
    assert.equal((await disableFailingEndpoints(deps, now)).length, 2);
    assert.equal((await disableFailingEndpoints(deps, now)).length, 0, 'a second sweep disables nothing');
    assert.equal(await disabled(metrics, 'failing'), 2);
    assert.equal(await disabled(metrics, 'gone'), 0);
  });

  it('counts an endpoint whose receiver answered 410 as gone, in the worker that got the answer', async () => {
    const db = await createTestDatabase();
    const h = harness(db);
    const receiver = await startReceiver((_req, res) => {
      res.statusCode = 410;
      res.end();
    });
    try {
      const handle = await worker(h);
      await send(h, await endpoint(h, `${receiver.origin}/gone`));
      await eventually(async () => (await disabled(handle.metrics, 'gone')) === 1, 15_000, 'the 410 counted');
      assert.equal(await disabled(handle.metrics, 'failing'), 0);
      assert.equal(await disabled(handle.metrics, 'operator'), undefined);
    } finally {
      await receiver.close();
    }
  });
});

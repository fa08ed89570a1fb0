/**
 * `app_http_problems_total{code,status}` (api/middleware/http-metrics.ts over errors.ts): every
 * problem answer counted by its APP_* code and the status it went out with, so that 503s say
 * their cause (the database unavailable here); a code of another form is counted as `other` and a
 * problem without one as `none`, so the label stays bounded.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createWebServer } from '../../../api/server.ts';
import { problemCodeLabel } from '../../../api/middleware/http-metrics.ts';
import { createToken } from '../../../shared/tokens/tokens.ts';
import { createTestDatabase } from '../../helpers/database.ts';
import { surviveDriverCrashAsProcessesDo } from '../../helpers/driver-crash.ts';
import { eventually } from '../../helpers/poll.ts';
import { parseMetrics, sampleValue } from '../../helpers/prometheus.ts';
import { startTcpProxy } from '../../helpers/tcp-proxy.ts';

describe('app_http_problems_total', () => {
  it('counts each problem answer by its code and status: 404 APP_WEBHOOK_NOT_FOUND, 503 APP_DATABASE_UNAVAILABLE', async () => {
    const db = await createTestDatabase();
    const proxy = await startTcpProxy(db.url);
    after(() => proxy.close());
    const config = db.configWith({ databaseUrl: proxy.url });
    surviveDriverCrashAsProcessesDo(db.log);
    const web = createWebServer({ config, log: db.log });
    after(() => web.shutdown('test'));
    const base = `http://127.0.0.1:${(await web.start(0)).port}`;
    const { token } = await createToken({ sql: db.sql, log: db.log }, { name: 'problems', role: 'admin' });
    const headers = { authorization: `Bearer ${token}` };
    const problems = async (code: string, status: string) =>
      sampleValue(parseMetrics(await web.metrics.registry.metrics()), 'app_http_problems_total', { code, status });

    for (let i = 0; i < 2; i += 1)
      assert.equal((await fetch(`${base}/api/v1/webhooks/ep_01NOTTHERE`, { headers })).status, 404);
    assert.equal((await fetch(`${base}/api/v1/webhooks`)).status, 401);
    assert.equal(await problems('APP_WEBHOOK_NOT_FOUND', '404'), 2);
    assert.equal(await problems('APP_UNAUTHENTICATED', '401'), 1);
    assert.equal(await problems('APP_DATABASE_UNAVAILABLE', '503'), undefined);

    await proxy.cut();
    const refused = await fetch(`${base}/api/v1/webhooks`, { headers });
    assert.equal(refused.status, 503);
    assert.equal(((await refused.json()) as { code: string }).code, 'APP_DATABASE_UNAVAILABLE');
    assert.equal(await problems('APP_DATABASE_UNAVAILABLE', '503'), 1);
    await proxy.restore();
    await eventually(
      async () => (await fetch(`${base}/api/v1/webhooks`, { headers })).status === 200,
      10_000,
      'the database back',
    );
    const counted = await problems('APP_DATABASE_UNAVAILABLE', '503');
    assert.equal((await fetch(`${base}/api/v1/webhooks`, { headers })).status, 200);
    assert.equal(
      await problems('APP_DATABASE_UNAVAILABLE', '503'),
      counted,
      'an answer that is no problem is not counted',
    );
  });

  it('keeps the label bounded: an APP_* code as it is, none without a code, other for any other form', () => {
    assert.equal(problemCodeLabel('APP_DATABASE_READ_ONLY'), 'APP_DATABASE_READ_ONLY');
    assert.equal(problemCodeLabel(null), 'none');
    for (const code of ['E_CUSTOM', 'APP_lower', `APP_${'X'.repeat(61)}`, 'APP_'])
      assert.equal(problemCodeLabel(code), 'other', code);
  });
});

/**
 * Issue 11, item 5: while the database is away the API answers 503 problem+json
 * `APP_DATABASE_UNAVAILABLE` with `Retry-After`, promptly (no request hangs on reconnect delays),
 * GraphQL fields carry the same code, readiness says 503; and once the database is back,
 * readiness and the API follow within a couple of seconds.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createWebServer } from '../../api/server.ts';
import { createToken } from '../../shared/tokens/tokens.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';
import { surviveDriverCrashAsProcessesDo } from '../helpers/driver-crash.ts';
import { eventually } from '../worker/helpers.ts';

const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

describe('the web process and a database outage', () => {
  it('answers 503 APP_DATABASE_UNAVAILABLE with Retry-After while the database is away, and recovers within seconds of its return', async () => {
    const db = await createTestDatabase();
    surviveDriverCrashAsProcessesDo(db.log); // as api/run.ts does: a TCP cut can trip the driver's known crash
    const proxy = await startTcpProxy(db.url);
    cleanups.push(() => proxy.close());
    const web = createWebServer({ config: db.configWith({ databaseUrl: proxy.url }), log: db.log });
    cleanups.push(() => web.shutdown('test'));
    const base = `http://127.0.0.1:${(await web.start(0)).port}`;
    const { token } = await createToken({ sql: db.sql, log: db.log }, { name: 'outage', role: 'admin' });
    const headers = { authorization: `Bearer ${token}`, accept: 'application/json', 'content-type': 'application/json' };
    assert.equal((await fetch(`${base}/api/v1/webhooks`, { headers })).status, 200);

    await proxy.cut();
    for (const path of ['/api/v1/webhooks', '/api/v1/deliveries', '/api/v1/events']) {
      const started = performance.now();
      const answer = await fetch(`${base}${path}`, { headers });
      const body = await answer.json() as { code: string; status: number };
      assert.equal(answer.status, 503, `${path}: ${JSON.stringify(body)}`);
      assert.equal(body.code, 'APP_DATABASE_UNAVAILABLE');
      assert.equal(answer.headers.get('retry-after'), '2');
      assert.match(answer.headers.get('content-type') ?? '', /problem\+json/);
      assert.ok(performance.now() - started < 6_000, `${path} answered within the connect timeout`);
    }
    // GraphQL: refused at authentication (the token lookup) with the same problem document
    const gql = await fetch(`${base}/_app/gql`, { method: 'POST', headers, body: JSON.stringify({ query: '{ webhookEndpoints { total } }' }) });
    const gqlBody = await gql.json() as { code?: string; errors?: { extensions?: { code?: string } }[] };
    assert.equal(gqlBody.code ?? gqlBody.errors?.[0]?.extensions?.code, 'APP_DATABASE_UNAVAILABLE', JSON.stringify(gqlBody));
    assert.equal((await fetch(`${base}/readyz`)).status, 503);

    // a few more failed attempts, as an outage of some seconds makes (the driver's own backoff grew with each)
    for (let i = 0; i < 5; i += 1) await (await fetch(`${base}/readyz`)).text();
    await proxy.restore();
    const back = performance.now();
    await eventually(async () => (await fetch(`${base}/readyz`)).status === 200, 10_000, 'readiness back');
    await eventually(async () => (await fetch(`${base}/api/v1/webhooks`, { headers })).status === 200, 10_000, 'the API back');
    assert.ok(performance.now() - back < 4_000, `recovered ${Math.round(performance.now() - back)} ms after the database came back`);
  });
});

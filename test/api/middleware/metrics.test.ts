import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createWebServer, type WebServer } from '../../../api/server.ts';
import { createMetrics } from '../../../shared/metrics/registry.ts';
import { readQueueFigures, registerQueueGauges } from '../../../shared/metrics/queue-gauges.ts';
import { connect } from '../../../shared/db/connect.ts';
import { createToken } from '../../../shared/tokens/tokens.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { histogramCount, parseMetrics, sampleValue } from '../../helpers/prometheus.ts';
import { startTcpProxy } from '../../helpers/tcp-proxy.ts';
import { endpoint, harness, send } from '../../worker/helpers.ts';

const TOKEN = 'a-scrape-token';
const servers: WebServer[] = [];
after(() => Promise.all(servers.map((web) => web.shutdown('test'))));

async function serve(db: TestDatabase, flags: Record<string, unknown>) {
  const metrics = createMetrics({ process: 'web' });
  registerQueueGauges(metrics.registry, {
    sql: db.sql,
    log: db.log,
    staleAfterMs: db.config.worker.staleAfter,
    cacheMs: 0,
  });
  const web = createWebServer({ config: db.configWith(flags), log: db.log, metrics });
  servers.push(web);
  const base = `http://127.0.0.1:${(await web.start(0)).port}`;
  let text = '';
  const scrape = async () => {
    const response = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    text = await response.text();
    return parseMetrics(text);
  };
  return { base, scrape, text: () => text };
}

describe('GET /metrics on the web process', () => {
  it('is not there without metrics.token (404), and refuses a missing or wrong bearer token (401)', async () => {
    const db = await createTestDatabase();
    const off = await serve(db, {});
    assert.equal((await fetch(`${off.base}/metrics`)).status, 404);
    const on = await serve(db, { metrics: { token: TOKEN } });
    const missing = await fetch(`${on.base}/metrics`);
    assert.equal(missing.status, 401);
    assert.equal(missing.headers.get('www-authenticate'), 'Bearer realm="metrics"');
    const wrong = await fetch(`${on.base}/metrics`, { headers: { authorization: 'Bearer not-it' } });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers.get('www-authenticate'), 'Bearer realm="metrics", error="invalid_token"');
    // problems with their codes, like every other refusal of the web process
    for (const [response, code] of [
      [missing, 'APP_UNAUTHENTICATED'],
      [wrong, 'APP_TOKEN_INVALID'],
    ] as const) {
      assert.equal(response.headers.get('content-type'), 'application/problem+json');
      assert.equal(response.headers.get('cache-control'), 'no-store');
      assert.equal(((await response.json()) as { code: string }).code, code);
    }
    const post = await fetch(`${on.base}/metrics`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
    assert.equal(((await post.json()) as { code: string }).code, 'APP_METHOD_NOT_ALLOWED');
  });

  it('labels requests by route template, never by raw path; counts rate-limited requests and idempotent replays; is itself never limited', async () => {
    const db = await createTestDatabase();
    const { base, scrape, text } = await serve(db, {
      metrics: { token: TOKEN },
      rateLimit: { max: 6, windowMs: 60_000 },
    });
    const { token } = await createToken({ sql: db.sql, log: db.log }, { name: 'metrics', role: 'admin' });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    assert.equal((await fetch(`${base}/api/v1/webhooks/ep_01NOTTHERE`, { headers })).status, 404);
    assert.equal((await fetch(`${base}/no/such/path/7`, { headers })).status, 404);
    const body = JSON.stringify({ url: 'https://127.0.0.1/metrics-hook', events: ['*'] });
    const first = await fetch(`${base}/api/v1/webhooks`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': 'metrics-1' },
      body,
    });
    assert.equal(first.status, 201);
    const replay = await fetch(`${base}/api/v1/webhooks`, {
      method: 'POST',
      headers: { ...headers, 'idempotency-key': 'metrics-1' },
      body,
    });
    assert.equal(replay.headers.get('idempotency-replayed'), 'true');
    let limited = 0;
    for (let i = 0; i < 5; i += 1)
      if ((await fetch(`${base}/api/v1/deliveries`, { headers })).status === 429) limited += 1;
    assert.ok(limited >= 1, 'the global limit (6 a minute) was reached');
    for (let i = 0; i < 8; i += 1)
      assert.equal((await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status, 200);

    const families = await scrape();
    const routes = families.get('app_http_requests_total')?.metrics.map((sample) => sample.labels?.route) ?? [];
    assert.ok(routes.includes('/api/v1/webhooks/:externalId'), routes.join(', '));
    assert.ok(routes.includes('unmatched'));
    assert.ok(routes.includes('/metrics'));
    assert.ok(
      routes.every((route) => route !== undefined && !/ep_|no\/such/.test(route)),
      `no raw path: ${routes.join(', ')}`,
    );
    assert.equal(
      sampleValue(families, 'app_http_requests_total', {
        route: '/api/v1/webhooks/:externalId',
        method: 'GET',
        status: '404',
      }),
      1,
    );
    assert.equal(sampleValue(families, 'app_rate_limited_total', { limiter: 'global' }), limited);
    assert.equal(sampleValue(families, 'app_idempotent_replays_total'), 1);
    assert.equal(
      histogramCount(text(), 'app_http_request_duration_seconds', { route: '/api/v1/webhooks', method: 'POST' }),
      2,
    );
    assert.ok(families.has('process_cpu_user_seconds_total'), 'the default process metrics');
    assert.ok(families.has('nodejs_eventloop_lag_seconds'));
  });

  it('the queue gauges move as deliveries are queued and die', async () => {
    const db = await createTestDatabase();
    const { scrape } = await serve(db, { metrics: { token: TOKEN } });
    const before = await scrape();
    assert.equal(sampleValue(before, 'app_queue_depth'), 0);
    assert.equal(sampleValue(before, 'app_queue_oldest_age_seconds'), 0);
    const h = harness(db);
    const ids = await send(h, await endpoint(h, 'http://127.0.0.1:9/gauges'), 'order.created');
    await send(h, await endpoint(h, 'http://127.0.0.1:9/gauges-2'), 'order.created');
    await db.sql`update app_webhook_deliveries set status = 'dead' where id = any(${ids})`;
    const after = await scrape();
    assert.equal(sampleValue(after, 'app_queue_depth'), 1);
    assert.equal(sampleValue(after, 'app_dead_deliveries'), 1);
    assert.ok((sampleValue(after, 'app_queue_oldest_age_seconds') ?? -1) >= 0);
  });
});

describe('queue gauges cache', () => {
  it('reads the database at most once per cacheMs, however often it is scraped', async () => {
    const db = await createTestDatabase();
    let clock = 0;
    const metrics = createMetrics({ process: 'web' });
    registerQueueGauges(metrics.registry, {
      sql: db.sql,
      log: db.log,
      staleAfterMs: db.config.worker.staleAfter,
      cacheMs: 5_000,
      now: () => clock,
    });
    const depth = async () => sampleValue(parseMetrics(await metrics.registry.metrics()), 'app_queue_depth');
    assert.equal(await depth(), 0);
    const h = harness(db);
    await send(h, await endpoint(h, 'http://127.0.0.1:9/cache'), 'order.created');
    assert.equal((await readQueueFigures(db.sql)).depth, 1, 'the database has it');
    clock = 4_999;
    assert.equal(await depth(), 0, 'still the cached figure');
    clock = 5_000;
    assert.equal(await depth(), 1, 'read again once cacheMs passed');
  });

  it('while the database does not answer, keeps the last depth and dead count and ages the oldest pending delivery by the time since they were read', async () => {
    const db = await createTestDatabase();
    const proxy = await startTcpProxy(db.url);
    const sql = connect(db.configWith({ databaseUrl: proxy.url }), db.log, { max: 1 });
    after(async () => {
      await sql.end({ timeout: 1 });
      await proxy.close();
    });
    let clock = 0;
    const metrics = createMetrics({ process: 'web' });
    registerQueueGauges(metrics.registry, {
      sql,
      log: db.log,
      staleAfterMs: db.config.worker.staleAfter,
      cacheMs: 5_000,
      now: () => clock,
    });
    const scrape = async () => parseMetrics(await metrics.registry.metrics());
    const h = harness(db);
    await send(h, await endpoint(h, 'http://127.0.0.1:9/outage'), 'order.created');
    const read = await scrape();
    const age = sampleValue(read, 'app_queue_oldest_age_seconds') ?? -1;
    assert.ok(age >= 0);

    await proxy.cut();
    clock = 60_000;
    const during = await scrape();
    assert.equal(sampleValue(during, 'app_queue_depth'), 1);
    assert.equal(sampleValue(during, 'app_dead_deliveries'), 0);
    // nothing could take the delivery meanwhile: an alert on the oldest age still sees it grow
    assert.equal(sampleValue(during, 'app_queue_oldest_age_seconds'), age + 60);

    // an empty queue stays empty: nothing could be queued without the database either
    await db.sql`delete from app_webhook_deliveries`;
    await proxy.restore();
    clock = 120_000;
    assert.equal(sampleValue(await scrape(), 'app_queue_oldest_age_seconds'), 0);
    await proxy.cut();
    clock = 180_000;
    assert.equal(sampleValue(await scrape(), 'app_queue_oldest_age_seconds'), 0);
  });
});

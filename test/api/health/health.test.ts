import assert from 'node:assert/strict';
import { createServer, connect as tcpConnect, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createWebServer, type WebServer } from '../../../api/server.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { eventually } from '../../helpers/poll.ts';
import { freePort } from '../../helpers/ports.ts';
import { migrate } from '../../../shared/db/migrate.ts';

const listen = (server: Server, port = 0) =>
  new Promise<number>((resolve) =>
    server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );

/** A TCP forwarder to the test database, started later on a port chosen now. */
function forwarder(target: URL) {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = tcpConnect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => socket.destroy());
      socket.on('close', () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
  });
  return {
    start: (port: number) => listen(server, port),
    stop: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(resolve);
      }),
  };
}

async function get(base: string, path: string) {
  const started = performance.now();
  const response = await fetch(`${base}${path}`);
  return {
    status: response.status,
    body: (await response.json()) as Record<string, any>,
    ms: performance.now() - started,
    headers: response.headers,
  };
}

describe('health endpoints', () => {
  let db: TestDatabase;
  let web: WebServer;
  let base: string;
  let appSawHealthPath = false;

  before(async () => {
    db = await createTestDatabase();
    web = createWebServer({ config: db.config, log: db.log });
    web.addMiddleware(async (ctx, next) => {
      if (['/livez', '/readyz', '/healthz', '/_app/health'].includes(ctx.path)) appSawHealthPath = true;
      await next();
    });
    base = `http://127.0.0.1:${(await web.start(0)).port}`;
  });
  after(() => web.shutdown('test'));

  it('GET /livez answers 200 while the process can answer', async () => {
    const live = await get(base, '/livez');
    assert.equal(live.status, 200);
    assert.equal(live.body.status, 'ok');
    assert.equal(typeof live.body.uptime, 'number');
  });

  for (const path of ['/readyz', '/healthz', '/_app/health']) {
    it(`GET ${path} answers readiness with status, stores and uptime`, async () => {
      const ready = await get(base, path);
      assert.equal(ready.status, 200, JSON.stringify(ready.body));
      assert.equal(ready.body.status, 'ok');
      assert.equal(ready.body.stores.default.adapter, 'postgresql');
      assert.equal(ready.body.stores.default.ok, true);
      assert.equal(typeof ready.body.stores.default.latency, 'number');
      assert.equal(typeof ready.body.uptime, 'number');
      assert.equal('shared' in ready.body, false, 'shared appears only when config.shared names a backend');
      assert.ok(ready.headers.get('x-request-id'));
    });
  }

  it('answers before any application middleware, which never sees the health paths', async () => {
    const posted = await fetch(`${base}/readyz`, { method: 'POST' });
    assert.equal(posted.status, 405);
    await get(base, '/healthz');
    assert.equal(appSawHealthPath, false);
  });
});

describe('readiness faults', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });

  it('with the database down: starts, /livez 200, /readyz 503 unreachable, then 200 by itself once it answers', async () => {
    const port = await freePort();
    const target = new URL(db.url);
    const moved = new URL(db.url);
    moved.port = String(port);
    const config = db.configWith({ databaseUrl: moved.toString() });
    const web = createWebServer({ config, log: db.log });
    const base = `http://127.0.0.1:${(await web.start(0)).port}`;
    const proxy = forwarder(target);
    try {
      assert.equal((await get(base, '/livez')).status, 200);
      const down = await get(base, '/readyz');
      assert.equal(down.status, 503);
      assert.equal(down.body.status, 'unavailable');
      assert.deepEqual(down.body.stores.default, { adapter: 'postgresql', ok: false, error: 'unreachable' });
      assert.match(down.body.reason, /store default/);

      await proxy.start(port);
      const up = await eventually(
        async () => {
          const answer = await get(base, '/readyz');
          return answer.status === 200 ? answer : undefined;
        },
        10_000,
        '/readyz to answer 200 once the database answers',
        100,
      );
      assert.equal(up.body.stores.default.ok, true);
    } finally {
      await web.shutdown('test');
      await proxy.stop();
    }
  });

  it('on a database the release step has not migrated: 503 naming what is missing, then 200 once it is migrated', async () => {
    const empty = await createTestDatabase({ empty: true });
    const web = createWebServer({ config: empty.config, log: empty.log });
    const base = `http://127.0.0.1:${(await web.start(0)).port}`;
    try {
      const behind = await eventually(
        async () => {
          const answer = await get(base, '/readyz');
          return answer.body.reason === 'starting' ? undefined : answer;
        },
        10_000,
        'the boot ended',
      );
      assert.equal(behind.status, 503);
      assert.equal(behind.body.stores.default.ok, true, 'the database answers');
      assert.match(
        behind.body.reason,
        /^the database is not migrated: \d+ migrations pending, from 001_webhooks\.sql \(run app migrate\)$/,
      );
      await migrate({ config: empty.config, log: empty.log });
      assert.equal((await get(base, '/readyz')).status, 200);
    } finally {
      await web.shutdown('test');
    }
  });

  it('with a store that hangs: 503 timeout, once readiness gives up on it after two seconds', async () => {
    const silent = createServer(() => {}); // accepts, never answers
    const port = await listen(silent);
    const config = db.configWith({ databaseUrl: `postgres://postgres@127.0.0.1:${port}/x` });
    const web = createWebServer({ config, log: db.log });
    const base = `http://127.0.0.1:${(await web.start(0)).port}`;
    try {
      const answer = await get(base, '/readyz');
      assert.equal(answer.status, 503);
      assert.deepEqual(answer.body.stores.default, { adapter: 'postgresql', ok: false, error: 'timeout' });
      // the store never answers, so the answer came from readiness giving up on it, not before its two seconds
      assert.ok(answer.ms >= 1900, `answered after ${answer.ms} ms`);
    } finally {
      await web.shutdown('test');
      silent.close();
    }
  });

  it('answers 503 starting until the boot ends', async () => {
    let finishBoot!: () => void;
    const booted = new Promise<void>((resolve) => (finishBoot = resolve));
    const web = createWebServer({ config: db.config, log: db.log }, [{ name: 'slow-boot', start: () => booted }]);
    const starting = web.start(0);
    await new Promise((resolve) => web.server.once('listening', resolve));
    const base = `http://127.0.0.1:${(web.server.address() as { port: number }).port}`;
    try {
      const early = await get(base, '/readyz');
      assert.equal(early.status, 503);
      assert.equal(early.body.reason, 'starting');
      assert.equal((await get(base, '/livez')).status, 200);
      finishBoot();
      await starting;
      assert.equal((await get(base, '/readyz')).status, 200);
    } finally {
      await web.shutdown('test');
    }
  });

  it('reports the shared store when one is configured, and 503 when it does not answer', async () => {
    const web = createWebServer({
      config: db.config,
      log: db.log,
      shared: { name: 'shared', adapter: 'redis', ping: () => Promise.reject(new Error('ECONNREFUSED')) },
    });
    const base = `http://127.0.0.1:${(await web.start(0)).port}`;
    try {
      const answer = await get(base, '/readyz');
      assert.equal(answer.status, 503);
      assert.deepEqual(answer.body.shared, { adapter: 'redis', ok: false, error: 'unreachable' });
      assert.equal(answer.body.reason, 'shared store did not answer');
    } finally {
      await web.shutdown('test');
    }
  });
});

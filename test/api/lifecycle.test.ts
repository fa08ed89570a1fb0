import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';
import { before, describe, it } from 'node:test';
import { BOOT_ORDER } from '../../api/lifecycle.ts';
import { createWebServer } from '../../api/server.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { spawnNode } from '../helpers/processes.ts';
import { linesInto } from '../helpers/logs.ts';
import { createLogger } from '../../shared/log/logger.ts';

function get(port: number, path: string, agent?: Agent): Promise<{ status: number; body: string; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, socket: req.socket as Socket }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('graceful shutdown of the web process', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });

  it('SIGTERM: readiness 503 during shutdown.delay, the slow request completes, the idle keep-alive socket is closed, exit 0', async () => {
    const web = spawnNode('test/fixtures/web-with-slow-route.ts', {
      // a delay long enough that the readiness check below lands inside it on a loaded machine
      DATABASE_URL: db.url,
      PORT: '0',
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      APP_SHUTDOWN__DELAY: '2s',
    });
    const port = Number((await web.waitFor(/LISTENING (\d+)/))[1]);
    await web.waitFor(/web process ready/);

    const idleAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    const idle = await get(port, '/livez', idleAgent);
    assert.equal(idle.status, 200);
    const idleClosed = new Promise<void>((resolve) => idle.socket.once('close', () => resolve()));

    const slow = get(port, '/slow?ms=2500');
    await web.waitFor(/SLOW STARTED/); // the slow request is in flight
    web.child.kill('SIGTERM');
    await web.waitFor(/shutting down/);

    const during = await get(port, '/readyz');
    assert.equal(during.status, 503, 'readiness fails at once while the port keeps serving');
    assert.equal(JSON.parse(during.body).reason, 'shutting down');

    const finished = await slow;
    assert.equal(finished.status, 200);
    assert.deepEqual(JSON.parse(finished.body), { slow: 'done' });
    await idleClosed;
    const exit = await web.exited;
    assert.equal(exit.code, 0, web.output());
    idleAgent.destroy();
  });

  it('destroys what is still open after shutdown.drain, says how many in the log, and still exits 0', async () => {
    const web = spawnNode('test/fixtures/web-with-slow-route.ts', {
      DATABASE_URL: db.url,
      PORT: '0',
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      APP_SHUTDOWN__DRAIN: '300ms',
    });
    const port = Number((await web.waitFor(/LISTENING (\d+)/))[1]);
    await web.waitFor(/web process ready/);
    const slow = get(port, '/slow?ms=10000').then(
      () => 'answered',
      () => 'destroyed',
    );
    await web.waitFor(/SLOW STARTED/);
    web.child.kill('SIGTERM');
    assert.equal(await slow, 'destroyed');
    const exit = await web.exited;
    assert.equal(exit.code, 0);
    assert.match(web.output(), /1 request\(s\) still open after 300 ms were destroyed/);
  });

  it("checks its server's version once the database answers (shared/db/server-version.ts), saying which it is", async () => {
    const web = spawnNode('api/main.ts', { DATABASE_URL: db.url, PORT: '0', NODE_ENV: 'test', LOG_LEVEL: 'info' });
    const [, version] = await web.waitFor(
      /"serverVersionNum":(\d+)[^\n]*"msg":"database server: PostgreSQL \d+\.\d+"/,
      30_000,
    );
    assert.ok(Number(version) >= 150_000, version);
    web.child.kill('SIGTERM');
    assert.equal((await web.exitedWithin(15_000)).code, 0, web.output());
  });

  it('refuses to start on an invalid config, listing every problem, exit code 1', async () => {
    const web = spawnNode('api/main.ts', {
      DATABASE_URL: db.url,
      PORT: 'http',
      APP_SHUTDOWN__DRAIN: '-1s',
      APP_WEBHOOKS__MAX_ATTEMPTS: '0',
    });
    const exit = await web.exited;
    assert.equal(exit.code, 1);
    assert.match(web.output(), /port \(environment\): must be a number/);
    assert.match(web.output(), /shutdown\.drain \(environment\): must be a duration/);
    assert.match(web.output(), /webhooks\.maxAttempts \(environment\): must be at least 1/);
  });

  it('stops modules in reverse start order and exits 1 when one fails to stop', async () => {
    const stopped: string[] = [];
    const web = createWebServer({ config: db.config, log: db.log }, [
      { name: 'first', stop: async () => void stopped.push('first') },
      {
        name: 'broken',
        stop: async () => {
          stopped.push('broken');
          throw new Error('cannot stop');
        },
      },
      { name: 'last', stop: async () => void stopped.push('last') },
    ]);
    await web.start(0);
    assert.equal(await web.shutdown('test'), 1);
    assert.deepEqual(stopped, ['last', 'broken', 'first']);
  });

  it('boots phase by phase in BOOT_ORDER, says the order once and each module as it starts, stops in reverse', async () => {
    const config = db.configWith({ logLevel: 'debug' });
    const logs: Record<string, unknown>[] = [];
    const events: string[] = [];
    const probe = (name: string) => ({
      name,
      start: async () => void events.push(`start ${name}`),
      stop: async () => void events.push(`stop ${name}`),
    });
    const web = createWebServer(
      { config, log: createLogger(config, { name: 'test', destination: linesInto(logs) }) },
      // given out of order: the phases decide
      {
        routes: [probe('a-route')],
        webhooks: [probe('a-webhook')],
        queue: [probe('a-queue')],
        stores: [probe('a-store')],
      },
    );
    await web.start(0);
    assert.equal(await web.shutdown('test'), 0);
    assert.deepEqual(events, [
      'start a-store',
      'start a-queue',
      'start a-webhook',
      'start a-route',
      'stop a-route',
      'stop a-webhook',
      'stop a-queue',
      'stop a-store',
    ]);

    assert.deepEqual(BOOT_ORDER, ['stores', 'queue', 'webhooks', 'routes']);
    const order = logs.filter((line) => line.msg === 'boot order: stores, queue, webhooks, routes');
    assert.equal(order.length, 1);
    const phases = order[0].modules as Record<string, string[]>;
    assert.deepEqual(Object.keys(phases), [...BOOT_ORDER]);
    // the pool and the endpoint stores are stores; the webhook module (the endpoint cache every face shares) follows the queue
    assert.ok(
      phases.stores.includes('database') &&
        phases.stores.includes('endpoint-stores') &&
        phases.stores.at(-1) === 'a-store',
      phases.stores.join(),
    );
    assert.deepEqual(phases.queue, ['a-queue']);
    assert.deepEqual(phases.webhooks, ['webhooks-api', 'a-webhook']);
    assert.equal(phases.routes.at(-1), 'a-route');

    const starting = logs.filter((line) => line.msg === `starting ${line.phase} module ${line.module}`);
    assert.deepEqual(
      starting.map((line) => `${line.phase} ${line.module}`),
      BOOT_ORDER.flatMap((phase) => phases[phase].map((name) => `${phase} ${name}`)),
    );
    assert.ok(starting.every((line) => line.level === 20)); // debug: the order's own line is the info
  });

  it('the modules a caller lists go last, after the routes phase', async () => {
    const logs: Record<string, unknown>[] = [];
    const config = db.configWith({ logLevel: 'info' });
    const web = createWebServer({ config, log: createLogger(config, { name: 'test', destination: linesInto(logs) }) }, [
      { name: 'listed' },
    ]);
    await web.start(0);
    await web.shutdown('test');
    const [order] = logs.filter((line) => String(line.msg).startsWith('boot order:'));
    assert.equal((order.modules as Record<string, string[]>).routes.at(-1), 'listed');
  });
});

describe('request timeout', () => {
  it('answers 503 to a request still running after config.requestTimeout', async () => {
    const db = await createTestDatabase();
    const config = db.configWith({ requestTimeout: 200, logLevel: 'info' });
    const logs: Record<string, unknown>[] = [];
    const web = createWebServer({ config, log: createLogger(config, { name: 'test', destination: linesInto(logs) }) });
    // the work runs until the test lets it end, so the 503 can only come from the timeout
    const release = Promise.withResolvers<void>();
    const ended = Promise.withResolvers<boolean>(); // whether the work saw its signal aborted
    web.addMiddleware(async (ctx) => {
      await release.promise;
      ended.resolve((ctx.state.signal as AbortSignal).aborted);
      ctx.body = { late: true }; // ignored: the client has its answer
    });
    const { port } = await web.start(0);
    try {
      const started = performance.now();
      const response = await fetch(`http://127.0.0.1:${port}/anything`);
      assert.equal(response.status, 503, 'answered while the work was still running');
      assert.equal(response.headers.get('content-type'), 'application/problem+json');
      assert.ok(performance.now() - started >= 195, 'not before the timeout');
      release.resolve();
      assert.equal(await ended.promise, true, 'the work sees its signal aborted');
      const failures = logs
        .filter((line) => line.msg === 'request failed')
        .map((line) => (line.err as { message?: string }).message);
      assert.deepEqual(failures, ['request did not finish within 200 ms'], 'the timeout configured is what answered');
    } finally {
      release.resolve();
      await web.shutdown('test');
    }
  });
});

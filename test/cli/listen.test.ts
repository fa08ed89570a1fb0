/**
 * `app listen`, run as the real process: it receives and verifies a delivery
 * emitted by another command and performed by the real worker, forwards it and relays the answer,
 * removes its endpoint on SIGINT, and at its next start removes the one a killed `listen` left.
 * A failure once its receiver listens (the endpoint refused) ends the process with the reason and
 * the exit code of its kind, and no run leaves a signal listener or a receiver behind. Its
 * database connection lost, it says so on stderr at once, reconnects and says so, and goes on
 * printing deliveries; the database away past --reconnect-timeout, it exits 4.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { after, describe, it } from 'node:test';
import amqp from 'amqplib';
import { runAppInProcess } from '../helpers/cli.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { freePort } from '../helpers/ports.ts';
import { spawnNode, type Spawned } from '../helpers/processes.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';
import { harness, runOnce } from '../worker/helpers.ts';

const db = await createTestDatabase();
const h = harness(db, { webhooks: { allowHttp: true, allowPrivate: true } });
const ENV = {
  NODE_ENV: 'test',
  DATABASE_URL: db.url,
  APP_WEBHOOKS__ALLOW_HTTP: 'true',
  APP_WEBHOOKS__ALLOW_PRIVATE: 'true',
  LOG_LEVEL: 'warn',
};
const spawned: Spawned[] = [];
after(() => {
  for (const process of spawned) process.child.kill('SIGKILL');
});

function listen(args: string[] = []): Spawned {
  const run = spawnNode('cli/main.ts', ENV, ['listen', '--json', ...args]);
  spawned.push(run);
  return run;
}

/** Listening on `port` succeeds: nothing (such as a receiver left open) holds it. */
const portIsFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = createTcpServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
const signalListeners = () => SIGNALS.map((signal) => process.listenerCount(signal));

const lines = (run: Spawned) =>
  run
    .output()
    .split('\n')
    .filter((text) => text.startsWith('{'))
    .map((text) => JSON.parse(text) as Record<string, unknown>);
const endpointIds = async () =>
  (await db.sql<{ id: string }[]>`select id from app_webhooks where description like 'app listen:%'`).map(
    (row) => row.id,
  );

/**
 * Emits `order.paid` with `data` to `owner` as `app events:emit` does, runs the worker once and
 * answers the delivery `run` printed, its signature verified.
 */
async function emitTo(run: Spawned, owner: string, data: string): Promise<Record<string, unknown>> {
  const emitted = await runAppInProcess(['events:emit', 'order.paid', '--owner', owner, '--data', data, '--json'], {
    PATH: process.env.PATH ?? '',
    HOME: '/tmp',
    ...ENV,
  });
  assert.equal(emitted.code, 0, emitted.stderr);
  await runOnce(h);
  await run.waitFor(/"kind":"delivery"/);
  const delivery = lines(run).find((document) => document.kind === 'delivery') as Record<string, unknown>;
  assert.equal(delivery.verified, true);
  return delivery;
}

/**
 * `app listen` (text form) reaching the database through a proxy; `cut()` closes its connections
 * and its port, so that every reconnection is refused.
 */
async function listenThroughProxy(reconnectTimeout: string) {
  const proxy = await startTcpProxy(db.url);
  after(() => proxy.close());
  const run = spawnNode('cli/main.ts', { ...ENV, DATABASE_URL: proxy.url }, [
    'listen',
    '--reconnect-timeout',
    reconnectTimeout,
  ]);
  spawned.push(run);
  let stderr = '';
  run.child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [, left] = await run.waitFor(/^listening on \S+ as endpoint (ep_\S+) /m);
  return { run, stderr: () => stderr, left, cut: () => proxy.cut() };
}

/** Removes the endpoint a listen could not remove, as an operator would. */
async function removeLeft(id: string): Promise<void> {
  const removed = await runAppInProcess(['webhooks:remove', id, '--yes'], {
    PATH: process.env.PATH ?? '',
    HOME: '/tmp',
    ...ENV,
  });
  assert.equal(removed.code, 0, removed.stderr);
}

describe('app listen', () => {
  it('prints a verified delivery emitted by another command, forwards it and relays the answer, and removes its endpoint on SIGINT', async () => {
    const forwarded: string[] = [];
    const app = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        forwarded.push(`${req.headers['webhook-id']} ${body}`);
        res.statusCode = 202;
        res.end('taken');
      });
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    after(() => new Promise<void>((resolve) => app.close(() => resolve())));
    const run = listen([
      '--events',
      'order.*',
      '--owner',
      'acme',
      '--forward-to',
      `http://127.0.0.1:${(app.address() as AddressInfo).port}/hook`,
    ]);
    await run.waitFor(/"kind":"listening"/);
    const listening = lines(run)[0];
    assert.match(String(listening.url), /^http:\/\/127\.0\.0\.1:\d+\/$/);
    const delivery = await emitTo(run, 'acme', '{"n":7}');
    assert.equal(delivery.type, 'order.paid');
    assert.deepEqual(delivery.data, { n: 7 });
    assert.equal(delivery.status, 202, "the forwarded url's answer is the receiver's");
    assert.equal(forwarded.length, 1);
    assert.match(forwarded[0], /^msg_\S+ \{.*"n":7/);
    const [{ status, last_status }] = await db.sql<
      { status: string; last_status: number }[]
    >`select status, last_status from app_webhook_deliveries where id = ${delivery.id as string}`;
    assert.equal(status, 'done');
    assert.equal(last_status, 202);
    assert.deepEqual(await endpointIds(), [listening.endpointId]);
    run.child.kill('SIGINT');
    assert.equal((await run.exited).code, 0, run.output());
    assert.deepEqual(await endpointIds(), [], 'no endpoint left behind');
  });

  it("forwards to a broker url through the worker's sender, and shows that url masked in every line it prints", async () => {
    const queue = `listen-forward-${process.pid}-${Date.now()}`;
    const connection = await amqp.connect('amqp://guest:guest@127.0.0.1:5672');
    after(() => connection.close());
    const channel = await connection.createChannel();
    await channel.assertQueue(queue, { durable: false, autoDelete: false });
    after(() => channel.deleteQueue(queue).catch(() => undefined));
    const run = listen([
      '--owner',
      'broker-forward',
      '--forward-to',
      `amqp://guest:guest@127.0.0.1:5672/%2F?routingKey=${queue}`,
    ]);
    await run.waitFor(/"kind":"listening"/);
    const listening = lines(run)[0];
    assert.equal(listening.forwardTo, `amqp://***@127.0.0.1:5672/%2F?routingKey=${queue}`);
    const delivery = await emitTo(run, 'broker-forward', '{"n":8}');
    assert.equal(delivery.status, 204, `the broker acknowledged it: ${JSON.stringify(delivery)}`);
    const message = await channel.get(queue, { noAck: true });
    assert.ok(message !== false, 'the forwarded message is in the queue');
    assert.deepEqual(JSON.parse(message.content.toString('utf8')).data, { n: 8 });
    assert.equal(message.properties.headers?.['webhook-id'], delivery.id);
    run.child.kill('SIGINT');
    assert.equal((await run.exited).code, 0, run.output());
    assert.ok(!run.output().includes('guest'), run.output());
  });

  it('a broker url to forward to that names no destination: refused at start (exit 2), the url masked', async () => {
    const run = listen(['--forward-to', 'amqp://fwd-user:listen-bad-Pw@127.0.0.1:5672/%2F']);
    const { code } = await run.exited;
    assert.equal(code, 2, run.output());
    assert.match(run.output(), /amqp:\/\/\*\*\*@127\.0\.0\.1:5672.*routingKey is missing/);
    assert.ok(!run.output().includes('listen-bad-Pw') && !run.output().includes('fwd-user'), run.output());
  });

  it('a killed listen leaves its endpoint; the next start removes it', async () => {
    const killed = listen();
    await killed.waitFor(/"kind":"listening"/);
    const left = lines(killed)[0].endpointId as string;
    killed.child.kill('SIGKILL');
    await killed.exited;
    assert.deepEqual(await endpointIds(), [left]);
    const next = listen();
    await next.waitFor(/"kind":"listening"/);
    const started = lines(next)[0];
    assert.deepEqual(started.removedStale, [left], next.output());
    assert.deepEqual(await endpointIds(), [started.endpointId]);
    next.child.kill('SIGTERM');
    assert.equal((await next.exited).code, 0);
    assert.deepEqual(await endpointIds(), []);
  });

  it('exits 1 with the reason on stderr, without hanging, when its endpoint is refused after the receiver started', async () => {
    // the catalog (config webhooks.strictEventTypes and the database) refuses the subscription:
    // known only when the endpoint is registered, once the receiver already listens
    const run = spawnNode('cli/main.ts', { ...ENV, APP_WEBHOOKS__STRICT_EVENT_TYPES: 'true' }, [
      'listen',
      '--events',
      'nosuch.*',
    ]);
    spawned.push(run);
    let stderr = '';
    run.child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exit = await run.exitedWithin(20_000);
    assert.equal(exit.code, 1, run.output());
    assert.deepEqual(
      stderr.split('\n').filter((text) => text.startsWith('app: ')),
      ['app: the pattern nosuch.* matches no event type of the catalog (webhooks.strictEventTypes is on)'],
    );
    assert.doesNotMatch(run.output(), /listening on/);
    assert.deepEqual(await endpointIds(), []);
  });

  it('its database connection ended by the server: says so on stderr at once, says when it is back, and still prints what is emitted after', async () => {
    const run = listen(['--owner', 'reconnects']);
    await run.waitFor(/"kind":"listening"/);
    const listening = lines(run)[0];
    // the connection the command holds to watch the database, opened before it says it listens
    const terminated = await db.sql<{ terminated: boolean }[]>`
      select pg_terminate_backend(pid) as terminated from pg_stat_activity
       where application_name = 'app-listen' and datname = current_database()`;
    assert.deepEqual(
      terminated.map((row) => row.terminated),
      [true],
    );
    await run.waitFor(/^app listen: lost .*\n/m);
    await run.waitFor(/^app listen: database connection back .*\n/m);
    const said = run
      .output()
      .split('\n')
      .filter((text) => text.startsWith('app listen: '));
    assert.equal(said.length, 2, run.output());
    assert.match(
      said[0],
      /^app listen: lost its database connection to [^ ]+ \(terminating connection due to administrator command\); reconnecting for up to 5m, /,
    );
    assert.match(
      said[1],
      new RegExp(
        `^app listen: database connection back after \\d+\\.\\ds; endpoint ${listening.endpointId} still registered and enabled, no delivery missed`,
      ),
    );
    const delivery = await emitTo(run, 'reconnects', '{"n":9}');
    assert.deepEqual(delivery.data, { n: 9 });
    run.child.kill('SIGINT');
    assert.equal((await run.exited).code, 0, run.output());
    assert.deepEqual(await endpointIds(), []);
  });

  it('says at once when its endpoint is disabled, enabled again or removed by someone else, and then stops without removing it again', async () => {
    const run = listen(['--owner', 'changed-live']);
    await run.waitFor(/"kind":"listening"/);
    const id = lines(run)[0].endpointId as string;
    const operator = (args: string[]) =>
      runAppInProcess(args, { PATH: process.env.PATH ?? '', HOME: '/tmp', ...ENV }).then((done) =>
        assert.equal(done.code, 0, done.stderr),
      );
    await operator(['webhooks:disable', id]);
    await run.waitFor(new RegExp(`^app listen: endpoint ${id} was disabled .*\n`, 'm'));
    await operator(['webhooks:enable', id]);
    await run.waitFor(new RegExp(`^app listen: endpoint ${id} enabled again, .*\n`, 'm'));
    await removeLeft(id);
    await run.waitFor(new RegExp(`^app listen: endpoint ${id} was removed: .*\n`, 'm'));
    const said = run
      .output()
      .split('\n')
      .filter((text) => text.startsWith('app listen: '));
    assert.equal(said.length, 3, run.output());
    run.child.kill('SIGINT');
    assert.equal((await run.exited).code, 0, run.output());
    assert.deepEqual(lines(run).at(-1), { kind: 'stopped', endpointId: id });
    assert.match(run.output(), new RegExp(`^app listen: endpoint ${id} was removed`, 'm'));
  });

  it('its database gone for longer than --reconnect-timeout: exits 4 with the reason, its endpoint left for the next start', async () => {
    const { run, stderr, left, cut } = await listenThroughProxy('1s');
    await cut();
    const exit = await run.exitedWithin(20_000);
    assert.equal(exit.code, 4, run.output());
    const said = stderr()
      .split('\n')
      .filter((text) => /^app( listen)?: /.test(text));
    assert.equal(said.length, 2, stderr());
    assert.match(
      said[0],
      /^app listen: lost its database connection to 127\.0\.0\.1:\d+ \(.+\); reconnecting for up to 1s/,
    );
    assert.match(
      said[1],
      /^app: cannot reach the database at 127\.0\.0\.1:\d+ \(DATABASE_URL\): the connection was lost and not back within 1s: connect ECONNREFUSED/,
    );
    assert.deepEqual(await endpointIds(), [left], 'the endpoint could not be removed without the database');
    await removeLeft(left);
  });

  it('SIGTERM while it reconnects ends it at once, with the exit code it had before (4: the endpoint cannot be removed)', async () => {
    const { run, stderr, left, cut } = await listenThroughProxy('5m');
    await cut();
    await run.waitFor(/^app listen: lost /m);
    run.child.kill('SIGTERM');
    const exit = await run.exitedWithin(10_000);
    assert.equal(exit.code, 4, run.output());
    assert.match(stderr(), /^app: cannot reach the database at 127\.0\.0\.1:\d+ \(DATABASE_URL\): /m);
    await removeLeft(left);
  });

  it('--reconnect-timeout that is not a duration: refused at start (exit 2)', async () => {
    const run = await runAppInProcess(['listen', '--reconnect-timeout', 'soon'], {
      PATH: process.env.PATH ?? '',
      HOME: '/tmp',
      ...ENV,
    });
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /^app: --reconnect-timeout "soon": must be a duration such as 30s, 5m or 1h/m);
  });

  describe('leaves no signal listener and no receiver behind, whichever way it ends', () => {
    const env = { PATH: process.env.PATH ?? '', HOME: '/tmp', ...ENV };

    it('the database cannot be reached (before the receiver starts): exit 4', async () => {
      const before = signalListeners();
      const run = await runAppInProcess(['listen'], { ...env, DATABASE_URL: 'postgres://127.0.0.1:1/app' });
      assert.equal(run.code, 4, run.stderr);
      assert.match(run.stderr, /^app: cannot reach the database at 127\.0\.0\.1:1/m);
      assert.deepEqual(signalListeners(), before);
    });

    it('the receiver cannot listen (its port is taken): exit 1', async () => {
      const taken = createTcpServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      const port = (taken.address() as AddressInfo).port;
      const before = signalListeners();
      try {
        const run = await runAppInProcess(['listen', '--port', String(port)], env);
        assert.equal(run.code, 1, run.stderr);
        assert.match(run.stderr, /^app: listen EADDRINUSE/m);
      } finally {
        await new Promise<void>((resolve) => taken.close(() => resolve()));
      }
      assert.deepEqual(signalListeners(), before);
    });

    it('its endpoint is refused once the receiver listens: exit 1, the error document with --json, the receiver closed', async () => {
      const port = await freePort();
      const before = signalListeners();
      const run = await runAppInProcess(['listen', '--json', '--port', String(port), '--events', 'nosuch.*'], {
        ...env,
        APP_WEBHOOKS__STRICT_EVENT_TYPES: 'true',
      });
      assert.equal(run.code, 1, run.stderr);
      assert.deepEqual(JSON.parse(run.stdout), {
        error: {
          code: 'APP_WEBHOOK_EVENT_TYPE_UNKNOWN',
          message: 'the pattern nosuch.* matches no event type of the catalog (webhooks.strictEventTypes is on)',
        },
      });
      assert.deepEqual(signalListeners(), before);
      assert.equal(await portIsFree(port), true, 'the receiver was closed');
      assert.deepEqual(await endpointIds(), []);
    });

    it('stopped by a signal: exit 0, the endpoint removed', async () => {
      const port = await freePort();
      const before = signalListeners();
      let listening!: () => void;
      const started = new Promise<void>((resolve) => (listening = resolve));
      const running = runAppInProcess(['listen', '--json', '--port', String(port)], env, {
        onStdout: (text) => text.includes('"kind":"listening"') && listening(),
      });
      await started;
      // the listeners the command added run as for a real SIGINT (the test runner's own, if any, do not)
      for (const listener of process.listeners('SIGINT').slice(before[0])) listener('SIGINT');
      const run = await running;
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /"kind":"stopped"/);
      assert.deepEqual(signalListeners(), before);
      assert.equal(await portIsFree(port), true, 'the receiver was closed');
      assert.deepEqual(await endpointIds(), []);
    });
  });

  it('refuses to start, with a clear reason and exit 2, when loopback delivery is not allowed', async () => {
    const run = await runAppInProcess(['listen'], {
      PATH: process.env.PATH ?? '',
      HOME: '/tmp',
      NODE_ENV: 'test',
      DATABASE_URL: db.url,
    });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /npm start -- --allow-local/);
  });
});

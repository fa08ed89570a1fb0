/**
 * Two real web processes sharing one backend, PostgreSQL then Redis (`shared.backend`): every row
 * of the idempotent request state table and the 400/409/422/429/503 rows of the error table across
 * the two, and the store going away (process A fails closed, B open).
 */
import assert from 'node:assert/strict';
import { createServer, connect as tcpConnect, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { spawnNode, type Spawned } from '../../helpers/processes.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { eventually } from '../../helpers/poll.ts';
import { freePort, REDIS_SKIP, startRedis } from './redis-server.ts';

const FIXTURE = 'test/fixtures/web-with-guarded-routes.ts';

/** A TCP forwarder to PostgreSQL that can be stopped (the store going away) and started again. */
function forwarder(target: URL, port: number) {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  return {
    async start() {
      server = createServer((client) => {
        const upstream = tcpConnect(Number(target.port || 5432), target.hostname);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('error', () => socket.destroy());
          socket.on('close', () => sockets.delete(socket));
        }
        client.pipe(upstream).pipe(client);
      });
      await new Promise<void>((resolve) => (server as Server).listen(port, '127.0.0.1', resolve));
    },
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    },
  };
}

interface Backend {
  name: string;
  skip?: string | false;
  /** Env for the web processes, and how to take the store away and bring it back. */
  setup(db: TestDatabase): Promise<{ env: Record<string, string>; goAway(): Promise<void>; comeBack(): Promise<void> }>;
}

const BACKENDS: Backend[] = [
  {
    name: 'postgres',
    async setup(db) {
      const port = await freePort();
      const proxy = forwarder(new URL(db.url), port);
      await proxy.start();
      cleanups.push(() => proxy.stop());
      const url = new URL(db.url);
      url.host = `127.0.0.1:${port}`;
      return {
        env: { APP_SHARED__BACKEND: 'postgres', APP_SHARED__URL: url.toString() },
        goAway: () => proxy.stop(),
        comeBack: () => proxy.start(),
      };
    },
  },
  {
    name: 'redis',
    skip: REDIS_SKIP,
    async setup() {
      const redis = await startRedis();
      return {
        env: { APP_SHARED__BACKEND: 'redis', APP_SHARED__URL: redis.url },
        goAway: () => redis.stop(),
        comeBack: () => redis.restart(),
      };
    },
  },
];

interface Web {
  base: string;
  process: Spawned;
}

async function startWeb(db: TestDatabase, env: Record<string, string>): Promise<Web> {
  // A timeout a loaded machine never reaches: only the store going away (connections refused at
  // once) fails a store call, so no test inherits a failure (or its throttled log line) from another.
  const spawned = spawnNode(FIXTURE, {
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    LOG_LEVEL: 'warn',
    APP_SHARED__TIMEOUT: '10s',
    ...env,
  });
  const [, port] = await spawned.waitFor(/LISTENING (\d+)/, 20_000);
  return { base: `http://127.0.0.1:${port}`, process: spawned };
}

async function send(
  web: Web,
  method: string,
  path: string,
  options: { key?: string; body?: unknown; signal?: AbortSignal } = {},
) {
  const response = await fetch(`${web.base}${path}`, {
    method,
    signal: options.signal,
    headers: {
      'Content-Type': 'application/json',
      ...(options.key === undefined ? {} : { 'Idempotency-Key': options.key }),
    },
    body: method === 'GET' ? undefined : JSON.stringify(options.body ?? {}),
  }).catch((error: Error & { cause?: { code?: string; message?: string } }) => {
    if (options.signal?.aborted) throw error;
    // say what failed: a fetch error alone ("fetch failed") hides the socket's reason
    throw new Error(
      `${method} ${path} on ${web.base}: ${error.message} (${error.cause?.code ?? ''} ${error.cause?.message ?? ''})`,
      { cause: error },
    );
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: text ? JSON.parse(text) : undefined };
}

let db: TestDatabase;
/** Stopped when the file's tests end (an `after` registered inside a hook would run when the hook ends). */
const cleanups: Array<() => Promise<unknown>> = [];
after(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});
before(async () => {
  db = await createTestDatabase();
  await db.sql`create table guarded_runs (id serial primary key, path text not null, key text, pid integer not null)`;
});

const runsOf = async (key: string) =>
  (await db.sql<{ n: number }[]>`select count(*)::int as n from guarded_runs where key = ${key}`)[0].n;

/** How long the waits of these tests allow: two processes, each with a pool and a store, on a loaded machine. */
const WAIT_MS = 20_000;

/** Waits until the held action of `key` has started (it records its run before it holds). */
const started = (key: string) => eventually(async () => (await runsOf(key)) > 0, WAIT_MS, `the action of ${key} runs`);

for (const backend of BACKENDS) {
  describe(`two web processes sharing ${backend.name}`, { skip: backend.skip }, () => {
    let a: Web; // shared.onError closed
    let b: Web; // shared.onError open
    let store: Awaited<ReturnType<Backend['setup']>>;
    const key = (name: string) => `${backend.name}-${name}`;

    before(async () => {
      store = await backend.setup(db);
      [a, b] = await Promise.all([
        startWeb(db, { ...store.env, APP_SHARED__ON_ERROR: 'closed' }),
        startWeb(db, { ...store.env, APP_SHARED__ON_ERROR: 'open' }),
      ]);
    });
    after(async () => {
      for (const web of [a, b]) {
        if (!web) continue;
        web.process.child.kill('SIGTERM');
        await web.process.exited;
      }
    });

    it('readiness reports the shared store', async () => {
      const ready = await send(a, 'GET', '/readyz');
      assert.equal(ready.status, 200, ready.text);
      assert.equal(ready.body.shared.adapter, backend.name === 'postgres' ? 'postgresql' : 'redis');
      assert.equal(ready.body.shared.ok, true);
    });

    it('no record: A executes; stored: B replays the same answer byte for byte with Idempotency-Replayed', async () => {
      const first = await send(a, 'POST', '/orders', { key: key('replay'), body: { item: 1 } });
      assert.equal(first.status, 201);
      const again = await send(b, 'POST', '/orders', { key: key('replay'), body: { item: 1 } });
      assert.equal(again.headers.get('idempotency-replayed'), 'true');
      assert.equal(again.status, 201);
      assert.equal(again.text, first.text);
      assert.equal(again.headers.get('x-run'), first.headers.get('x-run'));
      assert.equal(await runsOf(key('replay')), 1);
    });

    it('50 parallel identical requests over both processes: one execution, the rest 409 or the replay', async () => {
      // The one execution holds (?hold=) until the 49 others are answered: none can come after it.
      let settled = 0;
      let failure: unknown;
      const answers = Array.from({ length: 50 }, (_, i) => {
        const answer = send(i % 2 ? a : b, 'POST', '/orders?hold=parallel', {
          key: key('parallel'),
          body: { item: 'p' },
        });
        void answer.then(
          () => {
            settled += 1;
          },
          (error: unknown) => {
            failure ??= error;
          },
        ); // a failure is not an answer: it fails the test
        return answer;
      });
      // 49 answered (409: the claim exists) and the one holder's run recorded (it may come later)
      await eventually(
        async () => {
          if (failure !== undefined) throw failure;
          return settled >= 49 && (await runsOf(key('parallel'))) > 0;
        },
        WAIT_MS,
        '49 of the 50 are answered and the 50th is running',
      );
      const [{ pid }] = await db.sql<{ pid: number }[]>`select pid from guarded_runs where key = ${key('parallel')}`;
      const holder = a.process.child.pid === pid ? a : b;
      assert.equal((await send(holder, 'POST', '/release/parallel')).status, 204);
      const all = await Promise.all(answers);
      assert.equal(await runsOf(key('parallel')), 1, 'exactly one execution');
      const executed = all.filter((x) => x.status === 201 && !x.headers.get('idempotency-replayed'));
      assert.equal(executed.length, 1);
      for (const other of all) {
        if (other === executed[0]) continue;
        assert.ok(
          other.status === 409 || other.headers.get('idempotency-replayed') === 'true',
          `${other.status} ${other.text}`,
        );
        if (other.status === 409) assert.equal(other.headers.get('retry-after'), '1');
      }
    });

    it('executing on A, same request on B: 409 APP_API_IDEMPOTENCY_IN_PROGRESS with Retry-After: 1', async () => {
      const slow = send(a, 'POST', '/orders?hold=inflight', { key: key('inflight'), body: { item: 2 } });
      await started(key('inflight'));
      const during = await send(b, 'POST', '/orders?hold=inflight', { key: key('inflight'), body: { item: 2 } });
      assert.equal(during.status, 409);
      assert.equal(during.body.code, 'APP_API_IDEMPOTENCY_IN_PROGRESS');
      assert.equal(during.headers.get('retry-after'), '1');
      assert.equal((await send(a, 'POST', '/release/inflight')).status, 204);
      assert.equal((await slow).status, 201);
    });

    it('stored on A, same key with another body on B: 422 APP_API_IDEMPOTENCY_KEY_REUSED', async () => {
      await send(a, 'POST', '/orders', { key: key('reused'), body: { item: 3 } });
      const reused = await send(b, 'POST', '/orders', { key: key('reused'), body: { item: 'other' } });
      assert.equal(reused.status, 422);
      assert.equal(reused.body.code, 'APP_API_IDEMPOTENCY_KEY_REUSED');
      assert.equal(await runsOf(key('reused')), 1);
    });

    it('a 5xx first answer on A stores nothing: the retry on B runs again', async () => {
      assert.equal((await send(a, 'POST', '/fail', { key: key('5xx') })).status, 503);
      const retry = await send(b, 'POST', '/fail', { key: key('5xx') });
      assert.equal(retry.status, 503);
      assert.equal(retry.headers.get('idempotency-replayed'), null);
      assert.equal(await runsOf(key('5xx')), 2);
    });

    it('a request aborted on A stores nothing: the retry on B runs again', async () => {
      const controller = new AbortController();
      const path = '/orders?hold=aborted';
      const aborted = send(a, 'POST', path, {
        key: key('aborted'),
        body: { item: 4 },
        signal: controller.signal,
      }).catch((error: Error) => error);
      await started(key('aborted'));
      controller.abort();
      assert.ok((await aborted) instanceof Error);
      // the aborted action ends on A; the same request retried on B runs through
      for (const web of [a, b]) assert.equal((await send(web, 'POST', '/release/aborted')).status, 204);
      // A drops its claim once the aborted action has ended; until then B is told 409 (same request, in flight)
      let retry = await send(b, 'POST', path, { key: key('aborted'), body: { item: 4 } });
      await eventually(
        async () => {
          if (retry.status !== 409) return true;
          retry = await send(b, 'POST', path, { key: key('aborted'), body: { item: 4 } });
          return retry.status !== 409;
        },
        WAIT_MS,
        "A has dropped the aborted request's claim",
      );
      assert.equal(retry.status, 201, retry.text);
      assert.equal(retry.headers.get('idempotency-replayed'), null);
      assert.equal(await runsOf(key('aborted')), 2);
    });

    it('an invalid key: 400 APP_API_IDEMPOTENCY_KEY_INVALID on both', async () => {
      for (const web of [a, b]) {
        const answer = await send(web, 'POST', '/orders', { key: 'k'.repeat(256) });
        assert.equal(answer.status, 400);
        assert.equal(answer.body.code, 'APP_API_IDEMPOTENCY_KEY_INVALID');
      }
    });

    it('a route limit is counted across both: 4 in all, then 429 APP_API_RATE_LIMITED on either', async () => {
      const remaining: string[] = [];
      for (const web of [a, b, a, b]) {
        const answer = await send(web, 'POST', '/limited');
        assert.equal(answer.status, 201);
        remaining.push(/remaining=(\d+)/.exec(answer.headers.get('ratelimit') ?? '')?.[1] ?? '?');
      }
      assert.deepEqual(remaining, ['3', '2', '1', '0']);
      for (const web of [a, b]) {
        const refused = await send(web, 'POST', '/limited');
        assert.equal(refused.status, 429);
        assert.equal(refused.body.code, 'APP_API_RATE_LIMITED');
        assert.deepEqual(refused.body.data.limit, 4);
        assert.ok(Number(refused.headers.get('retry-after')) >= 1);
      }
    });

    it('the store going away: A (closed) answers 503 APP_STORE_SHARED_UNAVAILABLE + Retry-After, B (open) serves uncounted, idempotent requests refused on both, one log line each; then both recover', async () => {
      // Processes of its own: their failure log's throttle has seen nothing before this test.
      const [a, b] = await Promise.all([
        startWeb(db, { ...store.env, APP_SHARED__ON_ERROR: 'closed' }),
        startWeb(db, { ...store.env, APP_SHARED__ON_ERROR: 'open' }),
      ]);
      cleanups.push(async () => {
        for (const web of [a, b]) {
          web.process.child.kill('SIGTERM');
          await web.process.exited;
        }
      });
      await eventually(
        async () =>
          (await send(a, 'GET', '/readyz')).status === 200 && (await send(b, 'GET', '/readyz')).status === 200,
        WAIT_MS,
        'both processes reach the store',
      );
      await store.goAway();
      try {
        const ready = await send(a, 'GET', '/readyz');
        assert.equal(ready.status, 503);
        assert.equal(ready.body.shared.ok, false);
        assert.equal(ready.body.reason, 'shared store did not answer');

        for (let i = 0; i < 3; i += 1) {
          const closed = await send(a, 'GET', '/orders');
          assert.equal(closed.status, 503, closed.text);
          assert.equal(closed.body.code, 'APP_STORE_SHARED_UNAVAILABLE');
          assert.ok(Number(closed.headers.get('retry-after')) >= 1);

          const open = await send(b, 'GET', '/orders');
          assert.equal(open.status, 200, open.text);
          assert.equal(open.headers.get('ratelimit'), null, 'served uncounted');
          assert.equal((await send(b, 'POST', '/orders', { body: { item: 'no key' } })).status, 201);

          for (const web of [a, b]) {
            const idempotent = await send(web, 'POST', '/orders', { key: key(`down-${i}`), body: { item: 5 } });
            assert.equal(idempotent.status, 503);
            assert.equal(idempotent.body.code, 'APP_STORE_SHARED_UNAVAILABLE');
            assert.ok(Number(idempotent.headers.get('retry-after')) >= 1);
          }
        }
        assert.equal(await runsOf(key('down-0')), 0, 'refused idempotent requests never ran');
        for (const web of [a, b]) {
          const lines = web.process
            .output()
            .split('\n')
            .filter((line) => line.includes('shared store failed'));
          assert.equal(lines.length, 1, `one failure line per ten seconds:\n${lines.join('\n')}`);
        }
      } finally {
        await store.comeBack();
      }
      let back = await send(a, 'GET', '/orders');
      await eventually(
        async () => {
          back = await send(a, 'GET', '/orders');
          return back.status === 200;
        },
        WAIT_MS,
        'A counts again',
      );
      assert.ok(back.headers.get('ratelimit'), 'counted again');
      let idempotent = await send(b, 'POST', '/orders', { key: key('back'), body: {} });
      await eventually(
        async () => {
          if (idempotent.status === 201) return true;
          idempotent = await send(b, 'POST', '/orders', { key: key('back'), body: {} });
          return idempotent.status === 201;
        },
        WAIT_MS,
        'B stores idempotent answers again',
      );
      assert.equal(idempotent.status, 201);
    });
  });
}

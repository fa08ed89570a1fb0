/**
 * Rate-limit counters on every backend (rate-limiter-flexible underneath): the window, the
 * refusal, independent keys, counts shared by two processes, and a store that does not answer.
 */
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { memoryStore } from '../../../shared/stores/memory.ts';
import { postgresStore } from '../../../shared/stores/postgres.ts';
import { redisStore } from '../../../shared/stores/redis.ts';
import { StoreTimeoutError } from '../../../shared/stores/timeout.ts';
import type { SharedStore } from '../../../shared/stores/types.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { eventually } from '../../helpers/poll.ts';
import { freePort, REDIS_SKIP, startRedis, type TestRedis } from './redis-server.ts';

let db: TestDatabase;
let redis: TestRedis | undefined;
const stores: SharedStore[] = [];
const ignore = () => {};

before(async () => {
  db = await createTestDatabase();
  if (!REDIS_SKIP) redis = await startRedis();
});
after(async () => {
  for (const store of stores) await store.stop();
});

const BACKENDS: Array<{ name: string; skip?: string | false; make(): Promise<SharedStore> }> = [
  { name: 'memory', make: async () => memoryStore({ logFailure: ignore }) },
  {
    name: 'postgres',
    make: async () =>
      postgresStore({ config: db.configWith({ shared: { backend: 'postgres' } }), log: db.log, logFailure: ignore }),
  },
  {
    name: 'redis',
    skip: REDIS_SKIP,
    make: async () => redisStore({ url: (redis as TestRedis).url, timeoutMs: 1000, log: db.log, logFailure: ignore }),
  },
];

const open = async (make: () => Promise<SharedStore>) => {
  const store = await make();
  stores.push(store);
  await store.start();
  return store;
};

for (const backend of BACKENDS) {
  describe(`counters on ${backend.name}`, { skip: backend.skip }, () => {
    let store: SharedStore;
    let n = 0;
    const name = () => `test-${(n += 1)}-${Math.random().toString(36).slice(2)}`;
    before(async () => {
      store = await open(backend.make);
    });

    it('allows `points` hits per window, counting down remaining, then refuses until the window resets', async () => {
      const counter = store.counter({ name: name(), points: 3, windowMs: 60_000 });
      assert.equal(counter.windowMs, 60_000);
      const hits = [];
      for (let i = 0; i < 4; i += 1) hits.push(await counter.hit('ip:1'));
      assert.deepEqual(
        hits.map((h) => [h.allowed, h.remaining]),
        [
          [true, 2],
          [true, 1],
          [true, 0],
          [false, 0],
        ],
      );
      for (const hit of hits) assert.ok(hit.resetMs > 0 && hit.resetMs <= 60_000, String(hit.resetMs));
    });

    it('counts each key on its own', async () => {
      const counter = store.counter({ name: name(), points: 1, windowMs: 60_000 });
      assert.equal((await counter.hit('user:a')).allowed, true);
      assert.equal((await counter.hit('user:a')).allowed, false);
      assert.equal((await counter.hit('user:b')).allowed, true);
    });

    it('starts a new window once the old one has ended (windows are whole seconds)', async () => {
      const counter = store.counter({ name: name(), points: 1, windowMs: 900 });
      assert.equal(counter.windowMs, 1000, 'rounded up to one second');
      assert.equal((await counter.hit('k')).allowed, true);
      const askedAt = performance.now(); // before the backend decided: its window cannot end earlier than resetMs after this
      const refused = await counter.hit('k');
      assert.equal(refused.allowed, false);
      assert.ok(
        refused.resetMs > 0 && refused.resetMs <= 1000,
        `the window ends within its second: ${refused.resetMs} ms`,
      );
      // the backend's clock ends the window (Redis, PostgreSQL, the limiter's timers): hit until it
      // lets one through; a refused hit neither starts nor lengthens a window
      const fresh = await eventually(
        async () => {
          const hit = await counter.hit('k');
          return hit.allowed ? hit : undefined;
        },
        10_000,
        'a hit allowed in a new window',
        50,
      );
      const waited = performance.now() - askedAt;
      assert.ok(
        waited >= refused.resetMs - 10,
        `refused until the window ended: allowed ${waited} ms after a refusal ${refused.resetMs} ms before its end`,
      );
      assert.equal(fresh.remaining, 0, 'a new window of one point');
    });

    if (backend.name !== 'memory') {
      it('two processes (two connections) share one count', async () => {
        const second = await open(backend.make);
        const counterName = name();
        const a = store.counter({ name: counterName, points: 4, windowMs: 60_000 });
        const b = second.counter({ name: counterName, points: 4, windowMs: 60_000 });
        const results = await Promise.all([
          a.hit('ip:9'),
          b.hit('ip:9'),
          a.hit('ip:9'),
          b.hit('ip:9'),
          a.hit('ip:9'),
          b.hit('ip:9'),
        ]);
        assert.equal(results.filter((r) => r.allowed).length, 4);
      });
    }
  });
}

describe('a shared store that does not answer', () => {
  let silent: Server;
  let silentPort: number;
  const sockets = new Set<Socket>();
  before(async () => {
    silent = createServer((socket) => sockets.add(socket)); // accepts connections, never answers
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentPort = (silent.address() as { port: number }).port;
  });
  after(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise((resolve) => silent.close(resolve));
  });

  // Which error ends the wait says what decided it, however long a loaded machine took to get there:
  /** The store's own timeout (`shared.timeout` of `ms`) cut a wait for an answer that was never coming. */
  const cutByTimeout = (ms: number) => (error: unknown) =>
    error instanceof StoreTimeoutError && error.message.endsWith(`within ${ms} ms`);
  /** The failure itself, before any timeout had a say (a client that refuses at once, in the same turn). */
  const failedAtOnce = (error: unknown) => error instanceof Error && !(error instanceof StoreTimeoutError);

  it('postgres that hangs: hits, entries and ping fail after shared.timeout, not later', async () => {
    const config = db.configWith({
      shared: { backend: 'postgres', timeout: '300ms', url: `postgres://postgres@127.0.0.1:${silentPort}/x` },
    });
    const store = await open(async () => postgresStore({ config, log: db.log, logFailure: ignore }));
    await assert.rejects(store.counter({ name: 'hang', points: 5, windowMs: 60_000 }).hit('k'), cutByTimeout(300));
    await assert.rejects(store.entries.add('k', 1, 1000), cutByTimeout(300));
  });

  it('postgres that is down (connection refused): hits fail', async () => {
    const config = db.configWith({
      shared: { backend: 'postgres', timeout: '500ms', url: `postgres://postgres@127.0.0.1:${await freePort()}/x` },
    });
    const store = await open(async () => postgresStore({ config, log: db.log, logFailure: ignore }));
    // refused, or cut by the timeout should the machine be too busy to hear the refusal first
    await assert.rejects(store.counter({ name: 'down', points: 5, windowMs: 60_000 }).hit('k'));
    await assert.rejects(store.ping());
  });

  it('redis that is down: start does not throw, then hits, entries and ping fail at once', {
    skip: REDIS_SKIP,
  }, async () => {
    const failures: string[] = [];
    const store = await open(async () =>
      redisStore({
        url: `redis://127.0.0.1:${await freePort()}`,
        timeoutMs: 300,
        log: db.log,
        logFailure: (_e, what) => failures.push(what),
      }),
    );
    await assert.rejects(store.counter({ name: 'down', points: 5, windowMs: 60_000 }).hit('k'), failedAtOnce);
    await assert.rejects(store.entries.get('k'), failedAtOnce);
    await assert.rejects(store.ping(), failedAtOnce);
    assert.ok(failures.length > 0, 'the connection failure went to the failure log');
  });
});

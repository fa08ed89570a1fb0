import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase } from '../../../helpers/database.ts';
import { eventually } from '../../../helpers/poll.ts';
import { connect } from '../../../../shared/db/connect.ts';
import { createEndpointCache } from '../../../../shared/webhooks/endpoints/cache.ts';
import { createWebhooks } from '../../../../shared/webhooks/index.ts';
import { depsOf } from '../fixtures.ts';
import {
  disableEndpoint,
  registerEndpoint,
  removeEndpoint,
  updateEndpoint,
} from '../../../../shared/webhooks/endpoints/index.ts';
import { OPERATOR } from '../../../../shared/access/actor.ts';

const db = await createTestDatabase();
const url = 'https://127.0.0.1/cache';

/** How long these tests wait for what happens asynchronously: LISTEN starting, a notification arriving. */
const WAIT_MS = 10_000;

/** Counts the queries a cache makes, through a pool of its own; `listenFails` makes LISTEN fail. */
function countingPool(options: { listenFails?: boolean } = {}) {
  let queries = 0;
  const sql = connect(db.config, db.log, { max: 2, name: 'cache-test' });
  const counted = new Proxy(sql, {
    apply(target, thisArg, args) {
      if (Array.isArray(args[0]) && 'raw' in args[0]) queries += 1; // a query, not an identifier helper
      return Reflect.apply(target as unknown as (...a: unknown[]) => unknown, thisArg, args);
    },
    get(target, property, receiver) {
      if (property === 'listen' && options.listenFails) return () => Promise.reject(new Error('LISTEN refused (test)'));
      return Reflect.get(target, property, receiver);
    },
  });
  return { sql: counted, end: () => sql.end({ timeout: 5 }), queries: () => queries };
}

describe('endpoint cache', () => {
  it('keeps the enabled endpoints of exactly one owner, id, patterns and filter only, the null owner being its own key', async () => {
    const a = await registerEndpoint(depsOf(db), OPERATOR, {
      url,
      events: ['a.*'],
      owner: 'cache-A',
      headers: { 'X-Key': 'not cached' },
    });
    const none = await registerEndpoint(depsOf(db), OPERATOR, { url, events: ['*'] });
    const cache = createEndpointCache({ config: db.config, sql: db.sql, log: db.log });
    try {
      assert.deepEqual(await cache.get('cache-A'), [{ id: a.id, events: ['a.*'], filter: null }]);
      const owned = (await cache.get(null)).map((e) => e.id);
      assert.ok(owned.includes(none.id));
      assert.ok(!owned.includes(a.id));
    } finally {
      await cache.close();
    }
  });

  it('answers from memory within the TTL and reads again after it', async () => {
    const pool = countingPool();
    let now = 1_000_000;
    const cache = createEndpointCache({ config: db.config, sql: pool.sql, log: db.log }, { now: () => now });
    try {
      await registerEndpoint(depsOf(db), OPERATOR, { url, events: ['*'], owner: 'cache-ttl' });
      await cache.get('cache-ttl'); // starts listening; not kept until LISTEN is active
      await eventually(
        async () => {
          const before = pool.queries();
          await cache.get('cache-ttl');
          await cache.get('cache-ttl');
          return pool.queries() - before <= 1;
        },
        WAIT_MS,
        'the cache to keep entries once listening',
      );
      const before = pool.queries();
      now += 9_999;
      await cache.get('cache-ttl');
      assert.equal(pool.queries(), before, 'within ten seconds: no query');
      now += 2;
      await cache.get('cache-ttl');
      assert.equal(pool.queries(), before + 1, 'after ten seconds: read again');
    } finally {
      await cache.close();
      await pool.end();
    }
  });

  it('is invalidated in another process (another pool) by every kind of endpoint change, through NOTIFY', async () => {
    const other = countingPool(); // another process's pool
    const cache = createEndpointCache({ config: db.config, sql: other.sql, log: db.log });
    const ids = async (owner: string | null) => (await cache.get(owner)).map((e) => e.id).sort();
    try {
      await cache.get('cache-n'); // starts listening; nothing is kept (nor invalidated) before LISTEN is active
      await eventually(
        async () => {
          const before = other.queries();
          await cache.get('cache-n');
          await cache.get('cache-n');
          return other.queries() - before <= 1;
        },
        WAIT_MS,
        'the cache to keep entries once listening',
      );
      // This process changes endpoints through the main pool; the other process's cache must follow.
      const e1 = await registerEndpoint(depsOf(db), OPERATOR, { url, events: ['*'], owner: 'cache-n' });
      await eventually(async () => (await ids('cache-n')).includes(e1.id), WAIT_MS, 'register to be seen');
      await updateEndpoint(depsOf(db), OPERATOR, e1.id, { events: ['x.*'] });
      await eventually(async () => (await cache.get('cache-n'))[0]?.events[0] === 'x.*', WAIT_MS, 'update to be seen');
      await disableEndpoint(depsOf(db), OPERATOR, e1.id);
      await eventually(async () => (await ids('cache-n')).length === 0, WAIT_MS, 'disable to be seen');
      await updateEndpoint(depsOf(db), OPERATOR, e1.id, { enabled: true, owner: 'cache-m' });
      await eventually(async () => (await ids('cache-m')).includes(e1.id), WAIT_MS, 'the new owner to see it');
      assert.deepEqual(await ids('cache-n'), []);
      await removeEndpoint(depsOf(db), OPERATOR, e1.id);
      await eventually(async () => (await ids('cache-m')).length === 0, WAIT_MS, 'remove to be seen');
    } finally {
      await cache.close();
      await other.end();
    }
  });

  it('is invalidated at once in the process that made the change', async () => {
    const webhooks = createWebhooks(depsOf(db));
    try {
      assert.deepEqual(await webhooks.cache.get('cache-local'), []);
      const endpoint = await webhooks.register({ url, events: ['*'], owner: 'cache-local' });
      assert.equal(
        (await webhooks.emit('a.b', {}, { owner: 'cache-local' })).length,
        1,
        'the new endpoint is reached by the very next emit',
      );
      await webhooks.disable(endpoint.id);
      assert.equal((await webhooks.emit('a.b', {}, { owner: 'cache-local' })).length, 0);
    } finally {
      await webhooks.close();
    }
  });

  it('keeps nothing while it cannot listen (a missed change could otherwise go unnoticed), and still answers', async () => {
    const pool = countingPool({ listenFails: true });
    const refused = Promise.withResolvers<void>(); // the cache warns once it has seen LISTEN fail
    const quiet = { ...db.log, warn: () => refused.resolve() } as unknown as typeof db.log;
    const cache = createEndpointCache({ config: db.config, sql: pool.sql, log: quiet });
    try {
      await registerEndpoint(depsOf(db), OPERATOR, { url, events: ['*'], owner: 'cache-nolisten' });
      for (let i = 0; i < 3; i++) assert.equal((await cache.get('cache-nolisten')).length, 1);
      await refused.promise; // from here on it knows it cannot listen, not merely that it is not listening yet
      const before = pool.queries();
      await cache.get('cache-nolisten');
      await cache.get('cache-nolisten');
      assert.equal(pool.queries() - before, 2, 'every read goes to the table');
    } finally {
      await cache.close();
      await pool.end();
    }
  });

  it('needs no database to be created, and a read while the database is down rejects', async () => {
    const broken = connect({ ...db.config, databaseUrl: 'postgres://postgres@127.0.0.1:1/none' }, db.log, { max: 1 });
    const quiet = { ...db.log, warn: () => undefined } as unknown as typeof db.log;
    const down = createEndpointCache({ config: db.config, sql: broken, log: quiet });
    try {
      await assert.rejects(down.get('x'));
    } finally {
      await down.close();
      await broken.end({ timeout: 1 });
    }
  });
});

/**
 * The key-value contract of every shared backend (memory, PostgreSQL, Redis): get/set/add/delete,
 * expiry by the injected clock (24 h answers), purge, and `add` atomic across processes.
 */
import assert from 'node:assert/strict';
import { Redis } from 'ioredis';
import { after, before, describe, it } from 'node:test';
import { connect } from '../../../shared/db/connect.ts';
import { memoryEntries } from '../../../shared/stores/memory.ts';
import { postgresEntries } from '../../../shared/stores/postgres.ts';
import { redisEntries } from '../../../shared/stores/redis.ts';
import type { KeyValueStore } from '../../../shared/stores/types.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { REDIS_SKIP, startRedis, type TestRedis } from './redis-server.ts';

const DAY = 24 * 60 * 60 * 1000;

interface Backend {
  name: string;
  skip?: string | false;
  /** Two stores on the same backend as two processes would have (separate connections), sharing one clock. */
  make(now: () => number): Promise<[KeyValueStore, KeyValueStore]>;
}

let db: TestDatabase;
let redis: TestRedis | undefined;
const clients: Redis[] = [];
const pools: ReturnType<typeof connect>[] = [];

before(async () => {
  db = await createTestDatabase();
  if (!REDIS_SKIP) redis = await startRedis();
});
after(async () => {
  for (const client of clients) client.disconnect();
  for (const pool of pools) await pool.end({ timeout: 1 });
});

const BACKENDS: Backend[] = [
  {
    name: 'memory',
    async make(now) {
      const one = memoryEntries({ now });
      return [one, one]; // one process: the same map
    },
  },
  {
    name: 'postgres',
    async make(now) {
      const other = connect(db.config, db.log, { max: 4 });
      pools.push(other);
      return [postgresEntries(db.sql, { now }), postgresEntries(other, { now })];
    },
  },
  {
    name: 'redis',
    skip: REDIS_SKIP,
    async make(now) {
      const a = new Redis((redis as TestRedis).url);
      const b = new Redis((redis as TestRedis).url);
      clients.push(a, b);
      return [redisEntries(a, { now }), redisEntries(b, { now })];
    },
  },
];

for (const backend of BACKENDS) {
  describe(`shared entries on ${backend.name}`, { skip: backend.skip }, () => {
    let clock = Date.now();
    const now = () => clock;
    let store: KeyValueStore;
    let other: KeyValueStore;
    let n = 0;
    const key = () => `test:${backend.name}:${(n += 1)}:${Math.random()}`;
    before(async () => {
      [store, other] = await backend.make(now);
    });

    it('get answers undefined for an absent key, the value after set', async () => {
      const k = key();
      assert.equal(await store.get(k), undefined);
      const value = {
        status: 201,
        headers: { location: '/x' },
        body: { kind: 'json', text: '{"a":1}' },
        list: [1, 'two', null, true],
      };
      await store.set(k, value, DAY);
      assert.deepEqual(await other.get(k), value);
    });

    it('add stores only when the key is absent; delete frees it', async () => {
      const k = key();
      assert.equal(await store.add(k, 'first', DAY), true);
      assert.equal(await other.add(k, 'second', DAY), false);
      assert.equal(await store.get(k), 'first');
      await other.delete(k);
      assert.equal(await store.get(k), undefined);
      assert.equal(await store.add(k, 'third', DAY), true);
      await store.delete(`${k}:never-set`); // absent: nothing happens
    });

    it('set replaces the value and its expiry', async () => {
      const k = key();
      await store.add(k, 'claim', 1000);
      await store.set(k, 'answer', DAY);
      clock += 2000;
      assert.equal(await other.get(k), 'answer');
    });

    it('an entry stored for 24 hours reads until the last millisecond, then is absent and may be added again', async () => {
      const k = key();
      await store.set(k, { answer: 1 }, DAY);
      clock += DAY - 1;
      assert.deepEqual(await other.get(k), { answer: 1 });
      assert.equal(await other.add(k, 'late', DAY), false);
      clock += 1;
      assert.equal(await other.get(k), undefined);
      assert.equal(await other.add(k, 'new', DAY), true);
      assert.equal(await store.get(k), 'new');
    });

    it('of 50 concurrent adds of one key, from two processes, exactly one stores', async () => {
      const k = key();
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? store : other).add(k, i, DAY)));
      assert.equal(results.filter(Boolean).length, 1);
    });
  });
}

describe('purging expired entries', () => {
  it('memory: purge drops expired entries only', async () => {
    let clock = 0;
    const store = memoryEntries({ now: () => clock });
    await store.set('old', 1, 1000);
    await store.set('new', 2, DAY);
    clock = 5000;
    assert.equal(store.purge(), 1);
    assert.equal(store.size, 1);
    assert.equal(await store.get('new'), 2);
  });

  it('postgres: purge deletes expired rows and keeps live ones', async () => {
    let clock = Date.now();
    const store = postgresEntries(db.sql, { now: () => clock });
    await db.sql`delete from app_shared_entries`;
    await store.set('purge:old', 1, 1000);
    await store.set('purge:new', 2, DAY);
    clock += 5000;
    assert.equal(await store.purge(), 1);
    const rows = await db.sql<{ key: string }[]>`select key from app_shared_entries order by key`;
    assert.deepEqual(
      rows.map((row) => row.key),
      ['purge:new'],
    );
  });
});

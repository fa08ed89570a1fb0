/** `api.idempotency.store` and `rateLimit.store` name custom store modules that take precedence over the shared backend. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as plain from '../../fixtures/idempotency-store.ts';
import * as factory from '../../fixtures/idempotency-store-factory.ts';
import * as counters from '../../fixtures/counter-store.ts';
import { request, startGuardedApp, testDatabase } from './guarded-app.ts';

const send = (base: string, key: string) =>
  request('POST', `${base}/orders`, { body: { item: 'c' }, headers: { 'Idempotency-Key': key } });

describe('custom idempotency store', () => {
  it('a module exporting get, set and delete holds the records, ahead of the shared backend (postgres here)', async () => {
    const app = await startGuardedApp({
      flags: {
        shared: { backend: 'postgres' },
        api: { idempotency: { store: './test/fixtures/idempotency-store.ts' } },
      },
    });
    const first = await send(app.base, 'custom-1');
    const again = await send(app.base, 'custom-1');
    assert.equal(again.headers.get('idempotency-replayed'), 'true');
    assert.equal(again.text, first.text);
    assert.equal(plain.entries.size, 1);
    assert.deepEqual([...new Set(plain.calls)].sort(), ['get', 'set']);
    const db = await testDatabase();
    assert.equal((await db.sql`select 1 from app_shared_entries`).length, 0, 'nothing in the shared backend');
    assert.ok(
      app.logs.some((line) =>
        /has no add\(\): one execution per key is certain within each process only/.test(String(line.msg)),
      ),
    );
  });

  it('without add, 20 parallel identical requests still run once in this process', async () => {
    const app = await startGuardedApp({
      flags: { api: { idempotency: { store: './test/fixtures/idempotency-store.ts' } } },
    });
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        request('POST', `${app.base}/orders?ms=100`, { body: {}, headers: { 'Idempotency-Key': 'custom-parallel' } }),
      ),
    );
    assert.equal(answers.filter((a) => a.status === 201 && !a.headers.get('idempotency-replayed')).length, 1);
    assert.equal(app.runs.get('/orders'), 1);
  });

  it('a factory (app, {name}) => store is called once with the name "idempotency"', async () => {
    const app = await startGuardedApp({
      flags: { api: { idempotency: { store: './test/fixtures/idempotency-store-factory.ts' } } },
    });
    await send(app.base, 'factory-1');
    assert.equal((await send(app.base, 'factory-1')).headers.get('idempotency-replayed'), 'true');
    assert.deepEqual(factory.made, [{ name: 'idempotency', env: 'test' }]);
    assert.equal(factory.entries.size, 1);
  });

  it('a store module that cannot be loaded stops the boot', async () => {
    await assert.rejects(
      startGuardedApp({ flags: { api: { idempotency: { store: './test/fixtures/no-such-store.ts' } } } }),
      /no-such-store/,
    );
  });
});

describe('custom counter store', () => {
  it('rateLimit.store makes the counters (global and route), ahead of the shared backend', async () => {
    const db = await testDatabase();
    await db.sql`delete from app_rate_limits`;
    const app = await startGuardedApp({
      flags: { shared: { backend: 'postgres' }, rateLimit: { max: 2, store: './test/fixtures/counter-store.ts' } },
    });
    assert.equal((await request('GET', `${app.base}/orders`)).status, 200);
    assert.equal((await request('GET', `${app.base}/orders`)).status, 200);
    assert.equal((await request('GET', `${app.base}/orders`)).status, 429);
    assert.deepEqual(
      counters.made.find((c) => c.name === 'global'),
      { name: 'global', points: 2, duration: 60 },
    );
    assert.equal((await db.sql`select 1 from app_rate_limits`).length, 0, 'nothing counted in the shared backend');
    assert.ok(
      app.logs.some(
        (line) =>
          line.msg ===
          'api rate limit 2 requests per 60s per user or ip, counted in custom store ./test/fixtures/counter-store.ts (fail closed)',
      ),
    );
  });
});

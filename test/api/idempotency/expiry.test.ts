/**
 * Idempotency answers are kept 24 hours (`api.idempotency.ttl`), on a controlled clock, in process
 * memory and in PostgreSQL; expired records are purged.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { memoryStore } from '../../../shared/stores/memory.ts';
import { postgresStore } from '../../../shared/stores/postgres.ts';
import type { SharedStore } from '../../../shared/stores/types.ts';
import { request, startGuardedApp, testDatabase, type GuardedApp } from './guarded-app.ts';

const DAY = 24 * 60 * 60 * 1000;
const ignore = () => {};

const BACKENDS: Array<[string, (now: () => number) => Promise<SharedStore>]> = [
  ['memory', async (now) => memoryStore({ now, logFailure: ignore })],
  [
    'postgres',
    async (now) => {
      const db = await testDatabase();
      return postgresStore({
        config: db.configWith({ shared: { backend: 'postgres' } }),
        log: db.log,
        now,
        logFailure: ignore,
      });
    },
  ],
];

for (const [name, make] of BACKENDS) {
  describe(`24-hour retention (${name}, controlled clock)`, () => {
    let clock = Date.parse('2030-01-01T00:00:00Z');
    let app: GuardedApp;
    let store: SharedStore;
    before(async () => {
      store = await make(() => clock);
      app = await startGuardedApp({ sharedStore: store });
    });

    it('replays the stored answer until 24 hours have passed, then runs the request anew', async () => {
      const send = () =>
        request('POST', `${app.base}/orders`, { body: { item: 'x' }, headers: { 'Idempotency-Key': `day-${name}` } });
      const first = await send();
      clock += DAY - 1;
      const late = await send();
      assert.equal(late.headers.get('idempotency-replayed'), 'true');
      assert.equal(late.text, first.text);
      clock += 1;
      const expired = await send();
      assert.equal(expired.status, 201);
      assert.equal(expired.headers.get('idempotency-replayed'), null);
      assert.equal(expired.body.run, first.body.run + 1);
    });

    if (name === 'postgres') {
      it('expired records are purged from app_shared_entries', async () => {
        const db = await testDatabase();
        const count = async () =>
          (await db.sql<{ n: number }[]>`select count(*)::int as n from app_shared_entries`)[0].n;
        assert.ok((await count()) >= 1);
        clock += DAY;
        const purged = await (store as ReturnType<typeof postgresStore>).purge();
        assert.ok(purged.entries >= 1);
        assert.equal(await count(), 0);
      });
    }
  });
}

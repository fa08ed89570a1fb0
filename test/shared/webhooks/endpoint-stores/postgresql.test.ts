/**
 * The PostgreSQL endpoint store (shared/webhooks/endpoint-stores/postgresql.ts) against the test
 * run's PostgreSQL: the shared contract on a store with a `url` of its own (its own pool; `install`
 * makes each case's table), and the store of the service's own database, whose table the
 * migrations made (`app_webhooks`), kept equal to the endpoints' gate rows by triggers.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commitDeadline, withDeadline } from '../../../../shared/db/commit-deadline.ts';
import { openStore, postgresqlStore } from '../../../../shared/webhooks/endpoint-stores/postgresql.ts';
import type { StoreContext } from '../../../../shared/webhooks/endpoint-stores/types.ts';
import { createTestDatabase } from '../../../helpers/database.ts';
import { describeEndpointStoreContract, makeEndpoint } from './contract.ts';

const db = await createTestDatabase();
const contextOf = (table: string): StoreContext => ({
  name: 'registry',
  options: { adapter: 'postgresql', url: db.url },
  table,
});

describeEndpointStoreContract('postgresql', (table) => openStore(contextOf(table)), {
  child: (table) => ({ context: contextOf(table) }),
  withoutFilters: async (table) => {
    await db.sql`alter table ${db.sql(table)} drop column filter`;
  },
});

describe('postgresql store on the service database', () => {
  it('reads and writes the migrated app_webhooks, and the gate row follows insert, update and delete', async () => {
    const store = postgresqlStore('default', db.sql, 'app_webhooks', { owned: false });
    assert.equal(store.serviceDatabase, true);
    await store.install(); // the migrations own the table: nothing to do, nothing refused
    const record = makeEndpoint({ owner: 'tenant-pg', ordering: 'fifo', rateLimit: 7 });
    await store.insert(record);
    const gate = async () =>
      (
        await db.sql<
          { owner: string | null; ordering: string; rate_limit: number | null; disabled: boolean; version: number }[]
        >`
          select owner, ordering, rate_limit, disabled_at is not null as disabled, version
            from app_endpoint_gate where endpoint_id = ${record.id}`
      ).map((row) => ({ ...row }));
    assert.deepEqual(await gate(), [
      { owner: 'tenant-pg', ordering: 'fifo', rate_limit: 7, disabled: false, version: 1 },
    ]);
    const disabled = { ...record, disabledAt: new Date(), disabledReason: 'test', version: 2 };
    assert.equal(await store.update(disabled, 1), true);
    assert.deepEqual(await gate(), [
      { owner: 'tenant-pg', ordering: 'fifo', rate_limit: 7, disabled: true, version: 2 },
    ]);
    assert.equal(await store.delete(record.id), true);
    assert.deepEqual(await gate(), []);
  });

  it("a write of a request whose deadline passed is rolled back at its commit (the transaction's claim), and writes nothing", async () => {
    const store = postgresqlStore('default', db.sql, 'app_webhooks', { owned: false });
    const record = makeEndpoint({ owner: 'tenant-late' });
    await store.insert(record);
    const deadline = commitDeadline();
    deadline.expire();
    const timedOut = (error: { status?: number; code?: string }) =>
      error.status === 503 && error.code === 'APP_REQUEST_TIMEOUT';
    await withDeadline(deadline, async () => {
      await assert.rejects(store.insert(makeEndpoint({ owner: 'tenant-late' })), timedOut);
      await assert.rejects(store.update({ ...record, description: 'late', version: 2 }, 1), timedOut);
      await assert.rejects(store.delete(record.id), timedOut);
    });
    const rows = await db.sql<{ id: string; version: number }[]>`
      select id, version from app_webhooks where owner = 'tenant-late'`;
    assert.deepEqual(
      rows.map((row) => ({ ...row })),
      [{ id: record.id, version: 1 }],
    );
  });
});

/**
 * The drizzle adapter on PostgreSQL (postgres.js under drizzle-orm/postgres-js), against the
 * embedded server the test runner starts: a database of this file's own, every case a table of
 * its own in it (not the service's `app_webhooks`).
 */
import { openStore } from '../../../../shared/webhooks/endpoint-stores/drizzle.ts';
import type { StoreContext } from '../../../../shared/webhooks/endpoint-stores/types.ts';
import { createTestDatabase } from '../../../helpers/database.ts';
import { describeEndpointStoreContract } from './contract.ts';

const db = await createTestDatabase({ empty: true });

const contextOf = (table: string): StoreContext => ({
  name: 'registry',
  options: { adapter: 'drizzle', dialect: 'postgresql', url: db.url },
  table,
});

describeEndpointStoreContract('drizzle (postgresql)', (table) => openStore(contextOf(table)), {
  child: (table) => ({ context: contextOf(table) }),
  withoutFilters: async (table) => {
    await db.sql`alter table ${db.sql(table)} drop column filter`;
  },
});

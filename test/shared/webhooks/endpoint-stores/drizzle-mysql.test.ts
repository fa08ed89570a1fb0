/**
 * The drizzle adapter on MySQL/MariaDB (a mysql2 pool under drizzle-orm/mysql2), against the
 * server at 127.0.0.1:3306 (root, no password; TEST_MYSQL_URL names another): a database of this
 * file's own, `app_test_<random hex>`, dropped at the end. An unreachable server fails the file:
 * the adapter is not tested at all otherwise.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { createConnection } from 'mysql2/promise';
import { openStore } from '../../../../shared/webhooks/endpoint-stores/drizzle.ts';
import type { StoreContext } from '../../../../shared/webhooks/endpoint-stores/types.ts';
import { describeEndpointStoreContract, makeEndpoint } from './contract.ts';

const server = new URL(process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/');
const database = `app_test_${randomBytes(6).toString('hex')}`;
const admin = await createConnection({ uri: server.toString() });
await admin.query(`create database \`${database}\``);
after(async () => {
  await admin.query(`drop database if exists \`${database}\``);
  await admin.end();
});
const url = new URL(server);
url.pathname = `/${database}`;

const contextOf = (table: string): StoreContext => ({
  name: 'registry',
  options: { adapter: 'drizzle', dialect: 'mysql', url: url.toString() },
  table,
});

describeEndpointStoreContract('drizzle (mysql)', (table) => openStore(contextOf(table)), {
  child: (table) => ({ context: contextOf(table) }),
  withoutFilters: async (table) => {
    await admin.query(`alter table \`${database}\`.\`${table}\` drop column filter`);
  },
});

describe('drizzle (mysql): the session mode', () => {
  it('a value too long for its column is refused, never cut, whatever the server default', async () => {
    const store = await openStore(contextOf(`too_long_${randomBytes(4).toString('hex')}`));
    try {
      await store.install();
      // 1,200 bytes of UTF-8 for a column of 1,020
      const record = makeEndpoint({ owner: '😀'.repeat(300) });
      await assert.rejects(store.insert(record));
      assert.equal(await store.get(record.id), null);
    } finally {
      await store.close();
    }
  });
});

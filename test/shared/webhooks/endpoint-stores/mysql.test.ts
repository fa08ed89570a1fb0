/**
 * The MySQL / MariaDB endpoint store (shared/webhooks/endpoint-stores/mysql.ts) against a real
 * server: MariaDB at 127.0.0.1:3306 as root without password (CI starts it; TEST_MYSQL_URL names
 * another server). The file makes a database of its own, `app_test_<random hex>`, runs the shared
 * contract in it, and drops it at the end. A server that cannot be reached fails the file: it is
 * never skipped.
 *
 * The process runs in a zone far from UTC with a daylight-saving rule (Pacific/Chatham,
 * +12:45/+13:45), so a date that went through local time anywhere would come back shifted.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import mysql, { type RowDataPacket } from 'mysql2/promise';
import { openStore, quoteIdentifier } from '../../../../shared/webhooks/endpoint-stores/mysql.ts';
import type { StoreContext } from '../../../../shared/webhooks/endpoint-stores/types.ts';
import { describeEndpointStoreContract, makeEndpoint } from './contract.ts';

// set before any test runs (node reads TZ again when it changes)
process.env.TZ = 'Pacific/Chatham';

const SERVER_URL = process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/';
const database = `app_test_${randomBytes(6).toString('hex')}`;

const admin = await mysql.createConnection({ uri: SERVER_URL, timezone: 'Z' }).catch((error: Error) => {
  throw new Error(
    `MariaDB/MySQL is not reachable at ${SERVER_URL} (${error.message}); these tests need it (CI starts one; set TEST_MYSQL_URL for another)`,
    { cause: error },
  );
});
await admin.query(`CREATE DATABASE ${quoteIdentifier(database)} CHARACTER SET utf8mb4`);
after(async () => {
  await admin.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(database)}`);
  await admin.end();
});

const url = new URL(SERVER_URL);
url.pathname = `/${database}`;
const contextOf = (table: string): StoreContext => ({
  name: 'default',
  options: { adapter: 'mysql', url: url.toString() },
  table,
});

describeEndpointStoreContract('mysql', (table) => openStore(contextOf(table)), {
  child: (table) => ({ context: contextOf(table) }),
  withoutFilters: async (table) => {
    await admin.query(`ALTER TABLE ${quoteIdentifier(database)}.${quoteIdentifier(table)} DROP COLUMN \`filter\``);
  },
});

describe('mysql store: the table', () => {
  it('has utf8mb4 columns with a binary, non-padding collation, DATETIME(3), JSON, and an index on (owner, disabled_at)', async (t) => {
    const table = `shape_${randomBytes(4).toString('hex')}`;
    const store = await openStore(contextOf(table));
    t.after(() => store.close());
    await store.install();
    const [columns] = await admin.query<RowDataPacket[]>(
      'SELECT COLUMN_NAME AS name, COLUMN_TYPE AS type, CHARACTER_SET_NAME AS charset, COLLATION_NAME AS collation, IS_NULLABLE AS nullable FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?',
      [database, table],
    );
    const byName = new Map(columns.map((column) => [column.name as string, column]));
    for (const name of ['id', 'url', 'owner', 'description', 'disabled_reason']) {
      assert.equal(byName.get(name)?.charset, 'utf8mb4', name);
      assert.match(String(byName.get(name)?.collation), /^utf8mb4_(nopad_bin|0900_bin)$/, name);
    }
    for (const name of ['disabled_at', 'enabled_at', 'created_at', 'updated_at'])
      assert.equal(byName.get(name)?.type, 'datetime(3)', name);
    assert.equal(byName.get('owner')?.nullable, 'YES');
    const [indexes] = await admin.query<RowDataPacket[]>(
      'SELECT INDEX_NAME AS name, COLUMN_NAME AS col, SEQ_IN_INDEX AS seq FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY INDEX_NAME, SEQ_IN_INDEX',
      [database, table],
    );
    const columnsOf = (index: string) => indexes.filter((row) => row.name === index).map((row) => row.col);
    assert.deepEqual(columnsOf('owner_disabled_at'), ['owner', 'disabled_at']);
    assert.deepEqual(columnsOf('PRIMARY'), ['id']);
  });

  it('dates are stored as UTC wall-clock time to the millisecond, whatever the zone of the process or session', async (t) => {
    const table = `utc_${randomBytes(4).toString('hex')}`;
    const store = await openStore(contextOf(table));
    t.after(() => store.close());
    await store.install();
    // a date inside Chatham's daylight-saving change, where a trip through local time is the most likely to slip
    const record = makeEndpoint({ createdAt: new Date('2031-04-06T02:30:00.123Z') });
    await store.insert(record);
    await admin.query("SET time_zone = '+05:00'");
    const [[row]] = await admin.query<RowDataPacket[]>(
      `SELECT DATE_FORMAT(created_at, '%Y-%m-%dT%H:%i:%s.%f') AS at FROM ${quoteIdentifier(database)}.${quoteIdentifier(table)} WHERE id = ?`,
      [record.id],
    );
    assert.equal(row.at, '2031-04-06T02:30:00.123000');
    assert.deepEqual((await store.get(record.id))!.createdAt, record.createdAt);
  });

  it('a table name with backticks, quotes and spaces is quoted safely and names just that table', async (t) => {
    const table = `odd\`name; DROP TABLE x -- ' "${randomBytes(3).toString('hex')}`;
    const store = await openStore(contextOf(table));
    t.after(() => store.close());
    await store.install();
    const record = makeEndpoint();
    await store.insert(record);
    assert.deepEqual(await store.get(record.id), record);
    const [tables] = await admin.query<RowDataPacket[]>(
      'SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?',
      [database, table],
    );
    assert.equal(tables.length, 1);
  });

  it('refuses a table name the server could not hold (empty, over 64 characters, trailing space)', async () => {
    for (const table of ['', 'x'.repeat(65), 'trailing ']) {
      await assert.rejects(openStore(contextOf(table)), /not a usable table name/, JSON.stringify(table));
    }
  });

  it('a value too long for its column is refused, never stored cut', async (t) => {
    const store = await openStore(contextOf(`long_${randomBytes(4).toString('hex')}`));
    t.after(() => store.close());
    await store.install();
    const record = makeEndpoint({ owner: 'o'.repeat(256) });
    await assert.rejects(store.insert(record));
    assert.equal(await store.get(record.id), null);
  });

  it('ping throws before install (the table is missing) and answers after', async (t) => {
    const store = await openStore(contextOf(`ping_${randomBytes(4).toString('hex')}`));
    t.after(() => store.close());
    await assert.rejects(store.ping());
    await store.install();
    await store.ping();
  });
});

/**
 * A fresh MariaDB (or MySQL) database per test file, for the tests that put the endpoint table in
 * a `mysql` store: MariaDB at 127.0.0.1:3306 as root without password (CI starts it;
 * TEST_MYSQL_URL names another server). The database is `app_test_<random hex>`, made on the
 * first call and dropped when the file's tests end. A server that cannot be reached fails the
 * file: these tests are never skipped.
 */
import { randomBytes } from 'node:crypto';
import { after } from 'node:test';
import mysql, { type Connection, type RowDataPacket } from 'mysql2/promise';
import { quoteIdentifier } from '../../shared/webhooks/endpoint-stores/mysql.ts';

export const MARIADB_SERVER_URL = process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/';

export interface TestMariaDatabase {
  name: string;
  /** `mysql://…/<name>`: what a store's `url` names. */
  url: string;
  /** The test's own connection to the server (UTC), outside anything the service opens. */
  admin: Connection;
  /** The rows of `sql` run in this database. */
  rows(sql: string, values?: unknown[]): Promise<RowDataPacket[]>;
  /** Every value of every row and column of `table`, each cast to text as the server holds it, one line per row. */
  tableAsText(table: string): Promise<string>;
}

/**
 * Drops made by this file, registered on the file's root test when this module is imported, so
 * that a call inside a `before` hook does not drop the database as soon as that hook ends.
 */
const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

export async function createMariaDatabase(): Promise<TestMariaDatabase> {
  const admin = await mysql.createConnection({ uri: MARIADB_SERVER_URL, timezone: 'Z' }).catch((error: Error) => {
    throw new Error(
      `MariaDB/MySQL is not reachable at ${MARIADB_SERVER_URL} (${error.message}); these tests need it (CI starts one; set TEST_MYSQL_URL for another)`,
      { cause: error },
    );
  });
  const name = `app_test_${randomBytes(6).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${quoteIdentifier(name)} CHARACTER SET utf8mb4`);
  cleanups.push(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)}`);
    await admin.end();
  });
  const url = new URL(MARIADB_SERVER_URL);
  url.pathname = `/${name}`;
  const rows = async (sql: string, values: unknown[] = []) => {
    await admin.query(`USE ${quoteIdentifier(name)}`);
    const [result] = await admin.query<RowDataPacket[]>(sql, values);
    return result;
  };
  return {
    name,
    url: url.toString(),
    admin,
    rows,
    async tableAsText(table) {
      const columns = await rows(
        'SELECT COLUMN_NAME AS name FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION',
        [name, table],
      );
      if (columns.length === 0) throw new Error(`table ${table} does not exist in ${name}`);
      const casts = columns.map(
        (column) => `CAST(${quoteIdentifier(String(column.name))} AS CHAR) AS ${quoteIdentifier(String(column.name))}`,
      );
      const found = await rows(`SELECT ${casts.join(', ')} FROM ${quoteIdentifier(table)}`);
      return found
        .map((row) => columns.map((column) => String(row[String(column.name)] ?? 'NULL')).join('\t'))
        .join('\n');
    },
  };
}

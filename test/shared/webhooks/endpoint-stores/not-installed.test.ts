/**
 * A store that answers but whose endpoint table was never made (a production deploy that ran
 * `app migrate` and not `app webhooks:install`, a disk store's directory left empty): every call
 * that needs the table fails with 503 APP_STORE_NOT_INSTALLED naming the store and saying what to
 * run, never a 500 that names nothing, and the CLI exits 4 with that line. Real stores: MariaDB
 * (a database of this file's own), the embedded PostgreSQL (another database than the service's),
 * a temporary directory.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createConnection } from 'mysql2/promise';
import { failureOf } from '../../../../cli/failure.ts';
import { AppError } from '../../../../shared/errors/app-error.ts';
import { createLogger } from '../../../../shared/log/logger.ts';
import { openEndpointStores } from '../../../../shared/webhooks/endpoint-stores/open.ts';
import type { StoreOptions } from '../../../../shared/webhooks/endpoint-stores/types.ts';
import { createTestDatabase, testConfig } from '../../../helpers/database.ts';
import { storedEndpoint } from '../../../helpers/endpoint-store.ts';
import { linesInto } from '../../../helpers/logs.ts';

const server = new URL(process.env.TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/');
const database = `app_test_${randomBytes(6).toString('hex')}`;
const admin = await createConnection({ uri: server.toString() });
await admin.query(`create database \`${database}\``);
const mysqlUrl = new URL(server);
mysqlUrl.pathname = `/${database}`;
const pg = await createTestDatabase({ empty: true });
const directory = await mkdtemp(join(tmpdir(), 'app-not-installed-'));
after(async () => {
  await admin.query(`drop database if exists \`${database}\``);
  await admin.end();
  await rm(directory, { recursive: true, force: true });
});

const STORES: [string, StoreOptions][] = [
  ['mysql', { adapter: 'mysql', url: mysqlUrl.toString() }],
  ['drizzle (mysql)', { adapter: 'drizzle', dialect: 'mysql', url: mysqlUrl.toString() }],
  ['drizzle (postgresql)', { adapter: 'drizzle', dialect: 'postgresql', url: pg.url }],
  ['postgresql (a url of its own)', { adapter: 'postgresql', url: pg.url }],
  ['disk', { adapter: 'disk', path: directory }],
];

function assertNotInstalled(error: unknown, adapter: string): true {
  assert.ok(error instanceof AppError, `an AppError, got ${String(error)}`);
  assert.equal(error.status, 503);
  assert.equal(error.code, 'APP_STORE_NOT_INSTALLED');
  assert.equal(
    error.message,
    `endpoint store "registry" (${adapter}) has no endpoint table: run \`app webhooks:install\``,
  );
  assert.deepEqual(error.data, { store: 'registry', adapter });
  assert.equal(error.expose, true);
  return true;
}

describe('a store without its endpoint table', () => {
  for (const [label, options] of STORES) {
    it(`${label}: every call answers 503 APP_STORE_NOT_INSTALLED until install, then works`, async (t) => {
      const lines: Record<string, unknown>[] = [];
      const log = createLogger(testConfig(null, { logLevel: 'error' }), {
        name: 'test',
        destination: linesInto(lines),
      });
      const table = `missing_${randomBytes(4).toString('hex')}`;
      const stores = await openEndpointStores(
        testConfig(null, { stores: { registry: options }, webhooks: { store: 'registry', table } }),
        { sql: pg.sql, log },
      );
      t.after(() => stores.close());
      const store = stores.endpoints;
      const calls: [string, () => Promise<unknown>][] = [
        ['get', () => store.get('ep_1')],
        ['getMany', () => store.getMany(['ep_1'])],
        ['list', () => store.list({})],
        ['subscribers', () => store.subscribers('acme')],
        ['insert', () => store.insert(storedEndpoint('ep_1'))],
        ['update', () => store.update(storedEndpoint('ep_1', { version: 2 }), 1)],
        ['delete', () => store.delete('ep_1')],
      ];
      for (const [name, call] of calls) {
        await assert.rejects(call(), (error) => assertNotInstalled(error, options.adapter), name);
      }
      assert.match(String(lines[0]?.msg), /has no endpoint table \(run `app webhooks:install`\)/);

      // the CLI: exit 4 (try again later), the remedy and the driver's reason on one line
      const failure = await store.get('ep_1').catch((error: unknown) => error);
      const described = failureOf(failure);
      assert.equal(described.exit, 4);
      assert.equal(described.code, 'APP_STORE_NOT_INSTALLED');
      assert.match(
        described.message,
        /^endpoint store "registry" \(\w+\) has no endpoint table: run `app webhooks:install`: \S/,
      );
      assert.doesNotMatch(described.message, /\n/);

      await store.install();
      await store.insert(storedEndpoint('ep_1'));
      assert.equal((await store.get('ep_1'))?.id, 'ep_1');
    });
  }
});

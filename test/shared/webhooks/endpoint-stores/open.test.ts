/**
 * The factory of the endpoint stores (shared/webhooks/endpoint-stores/open.ts): every store of
 * `stores` opened with its name, options and the endpoint table, each behind the guard; the one
 * `webhooks.store` names as `endpoints`; close closing them all and never the service's pool;
 * a store that cannot be opened failing the whole with a message naming it; and a process
 * loading only the drivers of the adapters it uses.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Config } from '../../../../shared/config/index.ts';
import { AppError } from '../../../../shared/errors/app-error.ts';
import { createLogger } from '../../../../shared/log/logger.ts';
import { loadAdapter, openEndpointStores, usesServicePool } from '../../../../shared/webhooks/endpoint-stores/open.ts';
import type { StoreContext } from '../../../../shared/webhooks/endpoint-stores/types.ts';
import { createTestDatabase, testConfig, type TestDatabase } from '../../../helpers/database.ts';
import { inTestLoader, inTestStore, socketError, storedEndpoint } from '../../../helpers/endpoint-store.ts';
import { linesInto } from '../../../helpers/logs.ts';
import { ROOT } from '../../../helpers/processes.ts';

let db: TestDatabase;
before(async () => {
  db = await createTestDatabase();
});

const configWith = (stores: Record<string, unknown>, webhooks: Record<string, unknown> = {}): Config =>
  testConfig(null, { stores, webhooks });

/** The service's pool and a logger that keeps the guard's failure lines out of the test output. */
const service = () => ({
  sql: db.sql,
  log: createLogger(testConfig(null, { logLevel: 'silent' }), { name: 'test' }),
});

const REGISTRY = { adapter: 'mysql', url: 'mysql://app:pw@db.internal:3306/hooks' };
const DOCS = { adapter: 'mongoose', url: 'mongodb://db.internal/hooks' };

describe('openEndpointStores', () => {
  it('opens every configured store with its name, options, the endpoint table and the service pool', async () => {
    const contexts: StoreContext[] = [];
    const services: unknown[] = [];
    const config = configWith({ registry: REGISTRY, docs: DOCS }, { store: 'registry', table: 'hooks_endpoints' });
    const stores = await openEndpointStores(config, service(), {
      load: async (adapter) => ({
        openStore: async (context, service) => {
          contexts.push(context);
          services.push(service?.sql);
          return inTestStore(context.name, adapter);
        },
      }),
    });
    try {
      assert.deepEqual([...stores.all.keys()], ['default', 'registry', 'docs']);
      assert.deepEqual(
        contexts.sort((a, b) => a.name.localeCompare(b.name)),
        [
          { name: 'default', options: { adapter: 'postgresql' }, table: 'hooks_endpoints' },
          { name: 'docs', options: DOCS, table: 'hooks_endpoints' },
          { name: 'registry', options: REGISTRY, table: 'hooks_endpoints' },
        ],
      );
      assert.ok(
        services.every((sql) => sql === db.sql),
        'each adapter is offered the service pool',
      );
      assert.equal(stores.endpoints, stores.all.get('registry'), 'endpoints: the store webhooks.store names');
      assert.deepEqual([...stores.servicePool], ['default']);
      for (const [name, store] of stores.all) {
        assert.equal(store.name, name);
      }
      assert.equal(stores.all.get('docs')?.adapter, 'mongoose');
    } finally {
      await stores.close();
    }
  });

  it('loads each adapter the configuration uses, and no other', async () => {
    const loader = inTestLoader();
    const stores = await openEndpointStores(
      configWith({
        default: REGISTRY,
        other: { ...REGISTRY, url: 'mysql://other/hooks' },
        files: { adapter: 'disk', path: '/d' },
      }),
      service(),
      { load: loader.load },
    );
    await stores.close();
    assert.deepEqual([...new Set(loader.loads)].sort(), ['disk', 'mysql']);
  });

  it('puts every store behind the guard: one that cannot be reached answers 503 APP_STORE_UNAVAILABLE naming it', async () => {
    const loader = inTestLoader({ registry: socketError('ECONNREFUSED') });
    const stores = await openEndpointStores(configWith({ registry: REGISTRY }, { store: 'registry' }), service(), {
      load: loader.load,
    });
    try {
      await assert.rejects(stores.endpoints.list({}), (error) => {
        assert.ok(error instanceof AppError);
        assert.equal(error.code, 'APP_STORE_UNAVAILABLE');
        assert.equal(error.message, 'endpoint store "registry" (mysql) did not answer');
        assert.equal(error.headers?.['Retry-After'], '5');
        return true;
      });
      loader.opened.get('registry')?.behave('hang');
    } finally {
      await stores.close();
    }
  });

  it('applies its time limit to every call of a store, opening included', async () => {
    const loader = inTestLoader({ docs: 'hang' });
    const stores = await openEndpointStores(configWith({ docs: DOCS }, { store: 'docs' }), service(), {
      load: loader.load,
      timeoutMs: 100,
    });
    await assert.rejects(stores.endpoints.get('ep_1'), { code: 'APP_STORE_UNAVAILABLE' });
    await stores.close();

    let opened = 0;
    let closedLate = 0;
    let openLate!: () => void;
    const started = performance.now();
    await assert.rejects(
      openEndpointStores(configWith({ docs: DOCS }), service(), {
        timeoutMs: 100,
        load: async (adapter) => ({
          openStore: (context) =>
            adapter !== 'mongoose'
              ? loader.load(adapter).then((module) => module.openStore(context))
              : new Promise((resolve) => {
                  opened += 1;
                  const store = inTestStore(context.name, adapter);
                  store.close = async () => {
                    closedLate += 1;
                  };
                  openLate = () => resolve(store);
                }),
        }),
      }),
      (error) => {
        assert.ok(error instanceof AppError);
        assert.equal(error.code, 'APP_STORE_UNAVAILABLE');
        assert.equal(error.message, 'endpoint store "docs" (mongoose) did not answer');
        return true;
      },
    );
    assert.ok(performance.now() - started < 30_000);
    assert.equal(opened, 1);
    openLate(); // the store opens after all: nobody holds it, so it is closed
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(closedLate, 1);
  });

  it('fails the whole when a store cannot be opened, naming it, and closes the stores that did open', async () => {
    const loader = inTestLoader();
    const failing = async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1433'), { code: 'ECONNREFUSED' });
    };
    await assert.rejects(
      openEndpointStores(
        configWith({ registry: REGISTRY, ledger: { adapter: 'mssql', url: 'mssql://db/hooks' } }),
        service(),
        {
          load: async (adapter) => (adapter === 'mssql' ? { openStore: failing } : loader.load(adapter)),
        },
      ),
      (error) => {
        assert.ok(error instanceof AppError);
        assert.equal(error.message, 'endpoint store "ledger" (mssql) did not answer');
        return true;
      },
    );
    assert.equal(loader.opened.get('registry')?.closed, 1);
    assert.equal(loader.opened.get('default')?.closed, 1);

    await assert.rejects(
      openEndpointStores(configWith({ registry: REGISTRY }), service(), {
        load: async (adapter) =>
          adapter === 'mysql'
            ? {
                openStore: async () => {
                  throw new Error('Unknown protocol "mysqlx:"');
                },
              }
            : loader.load(adapter),
      }),
      /^Error: endpoint store "registry" \(mysql\) could not be opened: Unknown protocol "mysqlx:"$/,
    );
    await assert.rejects(
      openEndpointStores(configWith({ registry: REGISTRY }), service(), {
        load: async (adapter) => {
          if (adapter === 'mysql') throw new Error("Cannot find module './mysql.ts'");
          return loader.load(adapter);
        },
      }),
      /^Error: endpoint store "registry" \(mysql\): the mysql adapter could not be loaded: Cannot find module/,
    );
  });

  it('close closes every store once, logs one that fails to, and may be called again', async () => {
    const lines: Record<string, unknown>[] = [];
    const log = createLogger(testConfig(null, { logLevel: 'warn' }), { name: 'test', destination: linesInto(lines) });
    const loader = inTestLoader();
    const stores = await openEndpointStores(
      configWith({ registry: REGISTRY, docs: DOCS }),
      { sql: db.sql, log },
      {
        load: async (adapter) => {
          const module = await loader.load(adapter);
          return {
            openStore: async (context, service) => {
              const store = await module.openStore(context, service);
              if (context.name === 'docs') store.close = () => Promise.reject(new Error('socket hang up'));
              return store;
            },
          };
        },
      },
    );
    await Promise.all([stores.close(), stores.close()]);
    await stores.close();
    assert.equal(loader.opened.get('registry')?.closed, 1);
    assert.equal(loader.opened.get('default')?.closed, 1);
    assert.deepEqual(
      lines.map((line) => line.msg),
      ['endpoint store "docs" (mongoose) did not close cleanly'],
    );
  });

  it("opens the postgresql adapter's module by default: the default store is the service's own pool, left open at close", async () => {
    const config = testConfig(db.url);
    const stores = await openEndpointStores(config, service());
    try {
      assert.equal(stores.endpoints.adapter, 'postgresql');
      assert.deepEqual([...stores.servicePool], ['default']);
      await stores.endpoints.ping();
      await stores.endpoints.insert(storedEndpoint('ep_open_test'));
      assert.equal((await stores.endpoints.get('ep_open_test'))?.url, 'https://receiver.example/hooks');
      assert.equal(await stores.endpoints.delete('ep_open_test'), true);
    } finally {
      await stores.close();
    }
    assert.deepEqual([...(await db.sql`select 1 as one`)], [{ one: 1 }], 'the service pool still answers');
  });

  it('usesServicePool: a postgresql store without url', () => {
    assert.equal(usesServicePool({ adapter: 'postgresql' }), true);
    assert.equal(usesServicePool({ adapter: 'postgresql', url: 'postgres://other/db' }), false);
    assert.equal(usesServicePool({ adapter: 'drizzle', dialect: 'postgresql', url: 'postgres://db' }), false);
  });

  it('loadAdapter loads only the adapters there are', async () => {
    await assert.rejects(loadAdapter('../../config/index' as never), /unknown endpoint store adapter/);
    assert.equal(typeof (await loadAdapter('postgresql')).openStore, 'function');
  });
});

describe('a process loads the drivers of the adapters it uses only', () => {
  const folder = mkdtempSync(join(tmpdir(), 'app-store-loads-'));
  after(() => rmSync(folder, { recursive: true, force: true }));

  it('the default stores (the service pool) load none of mysql2, mssql, mongoose or drizzle', async () => {
    const file = join(folder, 'loads');
    const script = [
      "import postgres from 'postgres';",
      "import { openEndpointStores } from './shared/webhooks/endpoint-stores/open.ts';",
      "const sql = postgres('postgres://127.0.0.1:1/none');",
      "const config = { stores: { default: { adapter: 'postgresql' } }, webhooks: { table: 'app_webhooks', store: 'default' } };",
      'const stores = await openEndpointStores(config, { sql, log: console });',
      "if (stores.endpoints.adapter !== 'postgresql') process.exit(2);",
      'await stores.close();',
      'await sql.end();',
    ].join('\n');
    const child = spawn(
      process.execPath,
      ['--import', './test/helpers/module-loads.ts', '--input-type=module', '--eval', script],
      { cwd: ROOT, env: { PATH: process.env.PATH, MODULE_LOADS_FILE: file }, stdio: ['ignore', 'inherit', 'inherit'] },
    );
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 0);
    const loaded = readFileSync(file, 'utf8').split('\n');
    assert.ok(loaded.some((url) => url.endsWith('/shared/webhooks/endpoint-stores/postgresql.ts')));
    const drivers = loaded.filter((url) =>
      /\/node_modules\/(mysql2|mssql|tedious|mongoose|mongodb|drizzle-orm|proper-lockfile)\//.test(url),
    );
    assert.deepEqual(drivers, []);
  });
});

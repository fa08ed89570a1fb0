/**
 * Readiness with the configured endpoint stores (`stores`): each listed under its name with its
 * adapter, the service's own PostgreSQL listed once (as `default`, or as `database` when
 * `stores.default` is another database), and a store that does not answer within two seconds
 * making /readyz 503 with a reason naming it. The stores are opened by the real factory; the
 * adapters other than postgresql are stores made in the test (test/helpers/endpoint-store.ts).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { endpointStoreProbes, withConfiguredStores, type StoreProbe } from '../../../api/health/stores.ts';
import { createWebServer, type WebServer } from '../../../api/server.ts';
import type { Config } from '../../../shared/config/index.ts';
import { createLogger } from '../../../shared/log/logger.ts';
import { type EndpointStores, loadAdapter, openEndpointStores } from '../../../shared/webhooks/endpoint-stores/open.ts';
import type { AdapterName } from '../../../shared/webhooks/endpoint-stores/types.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { type Behaviour, inTestLoader, socketError } from '../../helpers/endpoint-store.ts';

let db: TestDatabase;
const cleanups: (() => Promise<unknown>)[] = [];
before(async () => {
  db = await createTestDatabase();
});
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const REGISTRY = { adapter: 'mysql', url: 'mysql://app:pw@db.internal:3306/hooks' };
const DOCS = { adapter: 'mongoose', url: 'mongodb://db.internal/hooks' };

/** The stores of `stores` opened by the factory: postgresql (and `real`) from its module, the others made in the test. */
async function open(
  config: Config,
  behaviours: Record<string, Behaviour> = {},
  real: readonly AdapterName[] = [],
): Promise<EndpointStores> {
  const loader = inTestLoader(behaviours, { adapters: ['postgresql', ...real], load: loadAdapter });
  const log = createLogger(db.configWith({ logLevel: 'silent' }), { name: 'test' }); // the guard's failure lines
  const stores = await openEndpointStores(config, { sql: db.sql, log }, { load: loader.load });
  cleanups.push(() => stores.close());
  return stores;
}

/** A web process whose readiness also asks the opened stores, and its base URL. */
async function serve(config: Config, stores: EndpointStores): Promise<{ web: WebServer; base: string }> {
  const web = createWebServer({ config, log: db.log, configuredStores: endpointStoreProbes(stores) });
  cleanups.push(() => web.shutdown('test'));
  return { web, base: `http://127.0.0.1:${(await web.start(0)).port}` };
}

async function get(base: string, path: string) {
  const started = performance.now();
  const response = await fetch(`${base}${path}`);
  return {
    status: response.status,
    body: (await response.json()) as { status: string; reason?: string; stores: Record<string, any> },
    ms: performance.now() - started,
  };
}

describe('readiness lists the configured stores', () => {
  it('lists each store with its adapter, and the service database once when stores.default is it', async () => {
    const config = db.configWith({ stores: { registry: REGISTRY, docs: DOCS } });
    const { base } = await serve(config, await open(config));
    for (const path of ['/readyz', '/healthz']) {
      const ready = await get(base, path);
      assert.equal(ready.status, 200, JSON.stringify(ready.body));
      assert.deepEqual(Object.keys(ready.body.stores).sort(), ['default', 'docs', 'registry']);
      assert.equal(ready.body.stores.default.adapter, 'postgresql');
      assert.equal(ready.body.stores.default.ok, true);
      assert.equal(ready.body.stores.registry.adapter, 'mysql');
      assert.equal(ready.body.stores.registry.ok, true);
      assert.equal(typeof ready.body.stores.registry.latency, 'number');
      assert.equal(ready.body.stores.docs.adapter, 'mongoose');
    }
  });

  it('a store that never answers: 503 after two seconds, the reason naming it, the others still listed', async () => {
    const config = db.configWith({ stores: { registry: REGISTRY, docs: DOCS } });
    const { base } = await serve(config, await open(config, { docs: 'hang' }));
    for (const path of ['/readyz', '/healthz']) {
      const answer = await get(base, path);
      assert.equal(answer.status, 503);
      assert.equal(answer.body.status, 'unavailable');
      assert.equal(answer.body.reason, 'store docs did not answer');
      assert.deepEqual(answer.body.stores.docs, { adapter: 'mongoose', ok: false, error: 'timeout' });
      assert.equal(answer.body.stores.registry.ok, true);
      assert.equal(answer.body.stores.default.ok, true);
      assert.ok(
        answer.ms >= 1900,
        `answered after ${answer.ms} ms: readiness gave up on the store after its two seconds`,
      );
    }
  });

  it('a store that refuses connections: 503 unreachable, naming it', async () => {
    const config = db.configWith({ stores: { registry: REGISTRY } });
    const { base } = await serve(config, await open(config, { registry: socketError('ECONNREFUSED') }));
    const answer = await get(base, '/readyz');
    assert.equal(answer.status, 503);
    assert.equal(answer.body.reason, 'store registry did not answer');
    assert.deepEqual(answer.body.stores.registry, { adapter: 'mysql', ok: false, error: 'unreachable' });
  });

  it('the endpoint store without its table: 503 not-installed, the reason saying what to run; 200 once installed', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'app-readyz-'));
    cleanups.push(() => rm(directory, { recursive: true, force: true }));
    const config = db.configWith({
      stores: { files: { adapter: 'disk', path: directory }, registry: REGISTRY },
      webhooks: { store: 'files' },
    });
    const stores = await open(config, {}, ['disk']);
    const { base } = await serve(config, stores);
    const missing = await get(base, '/readyz');
    assert.equal(missing.status, 503);
    assert.equal(missing.body.reason, 'store files has no endpoint table: run app webhooks:install');
    assert.deepEqual(missing.body.stores.files, { adapter: 'disk', ok: false, error: 'not-installed' });
    await stores.endpoints.install();
    const ready = await get(base, '/readyz');
    assert.equal(ready.status, 200, JSON.stringify(ready.body));
    assert.equal(ready.body.stores.files.ok, true);
  });

  it('a disk store whose path has become a file: 503 unusable, the reason saying what is wrong with it', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'app-readyz-'));
    cleanups.push(() => rm(directory, { recursive: true, force: true }));
    const path = join(directory, 'store');
    const config = db.configWith({
      stores: { files: { adapter: 'disk', path }, registry: REGISTRY },
      webhooks: { store: 'files' },
    });
    const stores = await open(config, {}, ['disk']);
    await stores.endpoints.install();
    const { base } = await serve(config, stores);
    assert.equal((await get(base, '/readyz')).status, 200);
    await rm(path, { recursive: true });
    await writeFile(path, 'not a directory');
    const answer = await get(base, '/readyz');
    assert.equal(answer.status, 503);
    assert.equal(answer.body.reason, 'store files cannot be used: its path is not a directory');
    assert.deepEqual(answer.body.stores.files, {
      adapter: 'disk',
      ok: false,
      error: 'unusable',
      reason: 'its path is not a directory',
    });
  });

  it('when stores.default is another database, the service database is listed as database', async () => {
    const config = db.configWith({ stores: { default: REGISTRY } });
    const { base } = await serve(config, await open(config));
    const ready = await get(base, '/readyz');
    assert.equal(ready.status, 200, JSON.stringify(ready.body));
    assert.deepEqual(Object.keys(ready.body.stores).sort(), ['database', 'default']);
    assert.equal(ready.body.stores.default.adapter, 'mysql');
    assert.equal(ready.body.stores.database.adapter, 'postgresql');
    assert.equal(ready.body.stores.database.ok, true);
  });
});

describe('endpointStoreProbes and withConfiguredStores', () => {
  const probe = (name: string, adapter = 'postgresql'): StoreProbe => ({ name, adapter, ping: async () => {} });

  it('leaves out the stores on the service pool, and asks each other store its own ping', async () => {
    const config = db.configWith({
      stores: { registry: REGISTRY, also: { adapter: 'postgresql' }, archive: { adapter: 'postgresql', url: db.url } },
    });
    const stores = await open(config, { registry: socketError('ECONNREFUSED') });
    const probes = endpointStoreProbes(stores);
    assert.deepEqual(
      probes.map(({ name, adapter }) => ({ name, adapter })),
      [
        { name: 'registry', adapter: 'mysql' },
        { name: 'archive', adapter: 'postgresql' },
      ],
    );
    await assert.rejects(probes[0].ping(), { code: 'APP_STORE_UNAVAILABLE' });
    await probes[1].ping();
  });

  it('keeps the service database first under its name, unless a configured store has taken it', () => {
    const names = (probes: StoreProbe[]) => probes.map(({ name, adapter }) => `${name}:${adapter}`);
    assert.deepEqual(names(withConfiguredStores([probe('default')], [])), ['default:postgresql']);
    assert.deepEqual(names(withConfiguredStores([probe('default')], [probe('registry', 'mysql')])), [
      'default:postgresql',
      'registry:mysql',
    ]);
    assert.deepEqual(names(withConfiguredStores([probe('default')], [probe('default', 'mysql')])), [
      'database:postgresql',
      'default:mysql',
    ]);
    assert.deepEqual(
      names(withConfiguredStores([probe('default')], [probe('default', 'mysql'), probe('database', 'disk')])),
      ['service-database:postgresql', 'default:mysql', 'database:disk'],
    );
  });
});

/**
 * A disk store whose `path` is not a directory (a regular file, or a path through one): every call
 * fails with 503 `APP_STORE_UNAVAILABLE` naming the store and saying why in words, as the web
 * process and the CLI hold their stores (opened on first use, behind the guard), and when the
 * directory is replaced by a file after the store opened; never the file system's ENOTDIR, which
 * a request answered as a 500.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { AppError } from '../../../../shared/errors/app-error.ts';
import { createLogger } from '../../../../shared/log/logger.ts';
import { endpointStoresOnDemand } from '../../../../shared/webhooks/endpoint-stores/on-demand.ts';
import { openEndpointStores } from '../../../../shared/webhooks/endpoint-stores/open.ts';
import type { EndpointStores } from '../../../../shared/webhooks/endpoint-stores/open.ts';
import { testConfig } from '../../../helpers/database.ts';
import { linesInto } from '../../../helpers/logs.ts';
import { makeEndpoint } from './contract.ts';

const directory = await mkdtemp(join(tmpdir(), 'app-disk-path-'));
after(() => rm(directory, { recursive: true, force: true }));

const lines: Record<string, unknown>[] = [];
const log = createLogger(testConfig(null, { logLevel: 'error' }), { name: 'test', destination: linesInto(lines) });
/** No store here is on the service's pool: the disk adapter never touches `sql`. */
const service = { sql: undefined as never, log };
const configOf = (path: string) =>
  testConfig(null, {
    stores: { registry: { adapter: 'disk', path } },
    webhooks: { store: 'registry', table: 'endpoints' },
  });

function assertNotADirectory(error: unknown): true {
  assert.ok(error instanceof AppError, `an AppError, got ${String(error)}`);
  assert.equal(error.status, 503);
  assert.equal(error.code, 'APP_STORE_UNAVAILABLE');
  assert.equal(error.message, 'endpoint store "registry" (disk) cannot be used: its path is not a directory');
  assert.deepEqual(error.data, {
    store: 'registry',
    adapter: 'disk',
    reason: 'its path is not a directory',
    retryAfter: 5,
  });
  assert.equal(error.expose, true);
  return true;
}

/** Every call of the endpoint store refused as not a directory. */
async function assertEveryCallRefused(stores: EndpointStores): Promise<void> {
  const store = stores.endpoints;
  await assert.rejects(store.get('ep_x'), assertNotADirectory);
  await assert.rejects(store.list({ limit: 10 } as never), assertNotADirectory);
  await assert.rejects(store.subscribers(null), assertNotADirectory);
  await assert.rejects(store.insert(makeEndpoint()), assertNotADirectory);
  await assert.rejects(store.ping(), assertNotADirectory);
  await assert.rejects(store.install(), assertNotADirectory);
}

describe('a disk store whose path is not a directory', () => {
  it('a regular file: every call of a store opened on first use is a 503 saying so', async (t) => {
    const file = join(directory, 'a-file');
    await writeFile(file, 'not a directory');
    const stores = endpointStoresOnDemand(configOf(file), service);
    t.after(() => stores.close());
    await assertEveryCallRefused(stores);
  });

  it('a path through a regular file: the same', async (t) => {
    const file = join(directory, 'another-file');
    await writeFile(file, 'not a directory');
    const stores = endpointStoresOnDemand(configOf(join(file, 'below')), service, { logFailures: false });
    t.after(() => stores.close());
    await assertEveryCallRefused(stores);
  });

  it('opening the stores at once refuses it the same way', async () => {
    const file = join(directory, 'third-file');
    await writeFile(file, 'not a directory');
    await assert.rejects(openEndpointStores(configOf(file), service), assertNotADirectory);
  });

  it('a directory replaced by a file after the store opened: its calls say so', async (t) => {
    const path = join(directory, 'replaced');
    await mkdir(path);
    const stores = await openEndpointStores(configOf(path), service);
    t.after(() => stores.close());
    await stores.endpoints.install();
    assert.equal(await stores.endpoints.get('ep_x'), null);
    await rm(path, { recursive: true });
    await writeFile(path, 'now a file');
    await assert.rejects(stores.endpoints.get('ep_x'), assertNotADirectory);
    await assert.rejects(stores.endpoints.insert(makeEndpoint()), assertNotADirectory);
    // the log says it too, with the path (the answer leaves the path out)
    const logged = lines.find((line) => String(line.msg).includes('cannot be used: its path is not a directory'));
    assert.match(String((logged?.err as { message?: string } | undefined)?.message), /replaced is not a directory/);
  });
});

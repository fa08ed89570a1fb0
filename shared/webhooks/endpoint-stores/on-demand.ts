/**
 * Endpoint stores opened on first use: what the long-running processes (web, worker) and the CLI
 * hold, so that a store that is down when a process starts never stops it from starting (the web
 * process keeps answering `/livez`, health names the store, and requests that need it get 503
 * `APP_STORE_UNAVAILABLE` until it answers). A store whose opening failed is opened again at the
 * next call.
 */
import type { Config } from '../../config/index.ts';
import type { Sql } from '../../db/connect.ts';
import type { Logger } from '../../log/logger.ts';
import { guardStore, STORE_TIME_LIMIT_MS } from './guard.ts';
import { type EndpointStores, loadAdapter, type OpenOptions, openOne, storeSet, usesServicePool } from './open.ts';
import type { EndpointStore, StoreOptions } from './types.ts';

/** `store` methods that go to the opened store. */
type Call = Exclude<keyof EndpointStore, 'name' | 'adapter' | 'serviceDatabase' | 'close'>;

/** A store that opens with `open` when first called, and again after a failed opening. */
export function storeOnDemand(name: string, options: StoreOptions, open: () => Promise<EndpointStore>): EndpointStore {
  let opening: Promise<EndpointStore> | undefined;
  let closed = false;
  const opened = (): Promise<EndpointStore> => {
    if (closed) return Promise.reject(new Error(`endpoint store "${name}" is closed`));
    if (opening === undefined) {
      const attempt = open();
      opening = attempt;
      attempt.catch(() => {
        if (opening === attempt) opening = undefined;
      });
    }
    return opening;
  };
  const call =
    <K extends Call>(method: K) =>
    async (...args: Parameters<EndpointStore[K]>) =>
      ((await opened())[method] as (...a: any[]) => any)(...args);
  return {
    name,
    adapter: options.adapter,
    serviceDatabase: usesServicePool(options),
    install: call('install'),
    ping: call('ping'),
    get: call('get'),
    getMany: call('getMany'),
    list: call('list'),
    subscribers: call('subscribers'),
    insert: call('insert'),
    update: call('update'),
    delete: call('delete'),
    async close() {
      closed = true;
      const pending = opening;
      opening = undefined;
      if (pending !== undefined) await (await pending.catch(() => undefined))?.close();
    },
  } as EndpointStore;
}

/** The configured stores (`stores`), each opened on first use and behind the guard; see `openEndpointStores`. */
export function endpointStoresOnDemand(
  config: Pick<Config, 'stores' | 'webhooks'>,
  service: { sql: Sql; log: Logger },
  options: OpenOptions = {},
): EndpointStores {
  const load = options.load ?? loadAdapter;
  const timeoutMs = options.timeoutMs ?? STORE_TIME_LIMIT_MS;
  const entries = Object.entries(config.stores) as [string, StoreOptions][];
  const servicePool = new Set(
    entries.filter(([, storeOptions]) => usesServicePool(storeOptions)).map(([name]) => name),
  );
  const all = new Map<string, EndpointStore>();
  for (const [name, storeOptions] of entries) {
    const store = storeOnDemand(name, storeOptions, () =>
      openOne({ name, options: storeOptions, table: config.webhooks.table }, service, load, timeoutMs),
    );
    all.set(
      name,
      guardStore(store, {
        timeoutMs,
        servicePool: servicePool.has(name),
        ...(options.logFailures === false ? {} : { log: service.log }),
      }),
    );
  }
  const endpoints = all.get(config.webhooks.store);
  if (endpoints === undefined) {
    throw new Error(`webhooks.store names ${JSON.stringify(config.webhooks.store)}, which is not in stores`);
  }
  return storeSet(all, endpoints, servicePool, service.log);
}

/**
 * Opens the configured endpoint stores (`stores`), each behind the guard (guard.ts), and names
 * the one that holds the endpoint table (`webhooks.store`). An adapter's module is loaded only
 * when a store uses it (a dynamic import by adapter name), so a deployment loads the driver it
 * uses and no other.
 */
import type { Config } from '../../config/index.ts';
import type { Sql } from '../../db/connect.ts';
import { isAppError } from '../../errors/app-error.ts';
import type { Logger } from '../../log/logger.ts';
import {
  guardStore,
  isStoreUnreachable,
  STORE_TIME_LIMIT_MS,
  storeUnavailable,
  unusableReason,
  withinTimeLimit,
} from './guard.ts';
import { ADAPTERS, type AdapterName, type EndpointStore, type StoreContext, type StoreOptions } from './types.ts';

/** What an adapter module (`./<adapter>.ts`) exports. */
export interface StoreModule {
  openStore(context: StoreContext, service?: { sql: Sql }): Promise<EndpointStore>;
}

/** Loads the module of an adapter. */
export type LoadAdapter = (adapter: AdapterName) => Promise<StoreModule>;

export interface EndpointStores {
  /** Every configured store by its name in `stores`, each behind the guard. */
  all: ReadonlyMap<string, EndpointStore>;
  /** The store `webhooks.store` names: where the endpoint table lives. */
  endpoints: EndpointStore;
  /**
   * The names of the stores on the service's own PostgreSQL pool (`postgresql` without a `url`):
   * they are the service's database, which health already reports as such.
   */
  servicePool: ReadonlySet<string>;
  /** Closes every store (each closes what it opened, never the service's pool); idempotent. */
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Loads an adapter's module (default: `./<adapter>.ts` beside this file). */
  load?: LoadAdapter;
  /** The guard's time limit of each call, opening included (default five seconds). */
  timeoutMs?: number;
  /**
   * Whether a store that does not answer is logged (default true). A one-shot command reports
   * the failure itself, in one line with its reason (the CLI), and leaves it out.
   */
  logFailures?: boolean;
}

/** Whether a store with these options is the service's own database, on the service's pool. */
export const usesServicePool = (options: StoreOptions): boolean =>
  options.adapter === 'postgresql' && options.url === undefined;

/** The adapter's module beside this file; only the adapters of ADAPTERS are ever loaded. */
export const loadAdapter: LoadAdapter = async (adapter) => {
  if (!ADAPTERS.includes(adapter)) throw new Error(`unknown endpoint store adapter ${JSON.stringify(adapter)}`);
  return (await import(`./${adapter}.ts`)) as StoreModule;
};

/**
 * Opens every store of `config.stores` (in parallel, each within the time limit) and wraps each
 * in the guard. A store that cannot be opened closes the ones that were and fails the whole:
 * with 503 `APP_STORE_UNAVAILABLE` when it could not be reached or cannot be used as configured
 * (saying why), else with an error naming it.
 */
export async function openEndpointStores(
  config: Pick<Config, 'stores' | 'webhooks'>,
  service: { sql: Sql; log: Logger },
  options: OpenOptions = {},
): Promise<EndpointStores> {
  const load = options.load ?? loadAdapter;
  const timeoutMs = options.timeoutMs ?? STORE_TIME_LIMIT_MS;
  const entries = Object.entries(config.stores) as [string, StoreOptions][];
  const servicePool = new Set(
    entries.filter(([, storeOptions]) => usesServicePool(storeOptions)).map(([name]) => name),
  );

  const opened = await Promise.allSettled(
    entries.map(([name, storeOptions]) =>
      openOne({ name, options: storeOptions, table: config.webhooks.table }, service, load, timeoutMs),
    ),
  );
  const failed = opened.find((outcome) => outcome.status === 'rejected');
  if (failed) {
    await Promise.allSettled(
      opened.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value.close() : undefined)),
    );
    throw failed.reason;
  }

  const all = new Map<string, EndpointStore>();
  entries.forEach(([name], index) => {
    const store = (opened[index] as PromiseFulfilledResult<EndpointStore>).value;
    all.set(name, guardStore(store, { timeoutMs, servicePool: servicePool.has(name), log: service.log }));
  });
  const endpoints = all.get(config.webhooks.store);
  if (endpoints === undefined) {
    // the configuration refuses this at start; a hand-made config may still get here
    await Promise.allSettled([...all.values()].map((store) => store.close()));
    throw new Error(`webhooks.store names ${JSON.stringify(config.webhooks.store)}, which is not in stores`);
  }
  return storeSet(all, endpoints, servicePool, service.log);
}

/** The stores as `EndpointStores`: closed together, once however often `close` is called. */
export function storeSet(
  all: ReadonlyMap<string, EndpointStore>,
  endpoints: EndpointStore,
  servicePool: ReadonlySet<string>,
  log: Logger,
): EndpointStores {
  let closing: Promise<void> | undefined;
  return {
    all,
    endpoints,
    servicePool,
    close() {
      closing ??= closeEach(all.values(), log);
      return closing;
    },
  };
}

/** Closes every store at once; one that fails to close is logged, never thrown, so the others still close. */
async function closeEach(stores: Iterable<EndpointStore>, log: Logger): Promise<void> {
  const list = [...stores];
  const outcomes = await Promise.allSettled(list.map((store) => store.close()));
  outcomes.forEach((outcome, index) => {
    if (outcome.status === 'rejected') {
      const store = list[index];
      log.warn(
        { err: outcome.reason, store: store.name, adapter: store.adapter },
        `endpoint store "${store.name}" (${store.adapter}) did not close cleanly`,
      );
    }
  });
}

/** Loads the adapter and opens one store, within the time limit; a store that opens too late is closed. */
export async function openOne(
  context: StoreContext,
  service: { sql: Sql },
  load: LoadAdapter,
  timeoutMs: number,
): Promise<EndpointStore> {
  const { name, options } = context;
  const label = `endpoint store "${name}" (${options.adapter})`;
  let module: StoreModule;
  try {
    module = await load(options.adapter);
  } catch (error) {
    throw new Error(`${label}: the ${options.adapter} adapter could not be loaded: ${messageOf(error)}`, {
      cause: error,
    });
  }
  const opening = (async () => module.openStore(context, { sql: service.sql }))();
  try {
    return await withinTimeLimit(opening, timeoutMs, `${label} (open)`);
  } catch (error) {
    // opened after the wait ended: nobody holds it, so its connections are closed
    opening.then((late) => late.close()).catch(() => {});
    if (isAppError(error)) throw error;
    const unusable = unusableReason(error);
    if (unusable !== undefined) throw storeUnavailable({ name, adapter: options.adapter }, error, unusable);
    if (isStoreUnreachable(error)) throw storeUnavailable({ name, adapter: options.adapter }, error);
    throw new Error(`${label} could not be opened: ${messageOf(error)}`, { cause: error });
  }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

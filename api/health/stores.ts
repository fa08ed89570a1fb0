import type { Sql } from '../../shared/db/connect.ts';
import { isAppError } from '../../shared/errors/app-error.ts';
import { unusableReason } from '../../shared/webhooks/endpoint-stores/guard.ts';
import type { EndpointStores } from '../../shared/webhooks/endpoint-stores/open.ts';

/** Something readiness asks "do you answer?": a database, the shared store. */
export interface StoreProbe {
  name: string;
  adapter: string;
  /** Resolves when the store answered; rejects otherwise. */
  ping(): Promise<void>;
}

export type StoreReport =
  | { adapter: string; ok: true; latency: number }
  | { adapter: string; ok: false; error: 'timeout' | 'unreachable' | 'not-installed' }
  | { adapter: string; ok: false; error: 'unusable'; reason: string };

/** An id no endpoint has: reading it asks the endpoint store for its table without finding a row. */
const PROBE_ID = 'ep_readiness_probe';

/** A PostgreSQL store probe (`select 1`) over its own small pool, so a stuck probe never holds the app's connections. */
export function postgresProbe(name: string, sql: Sql): StoreProbe {
  return {
    name,
    adapter: 'postgresql',
    async ping() {
      await sql`select 1`;
    },
  };
}

/**
 * Readiness probes of the configured endpoint stores (`stores`): each store's own `ping`, under
 * its name and with its adapter, and for the store of the endpoint table (`webhooks.store`) a
 * read of one id as well, so that a store without its table (`app webhooks:install` not run)
 * keeps the process out of rotation rather than answering every request 503. A store on the
 * service's own pool is left out: it is the service's database, which the web process's own probe
 * already reports (`withConfiguredStores`), so it is listed once.
 */
export function endpointStoreProbes(stores: EndpointStores): StoreProbe[] {
  return [...stores.all.values()]
    .filter((store) => !stores.servicePool.has(store.name))
    .map((store) => ({
      name: store.name,
      adapter: store.adapter,
      ping: async () => {
        await store.ping();
        if (store === stores.endpoints) await store.get(PROBE_ID);
      },
    }));
}

/** Names the service's database is reported under when a configured store has taken `default`. */
const DATABASE_NAMES = ['database', 'service-database'];

/**
 * What readiness asks: the web process's own probes (the service's database, reported as
 * `default`, the name of the store that is it out of the box) and the configured stores, each
 * under its name. When a configured store has taken the name of an own probe (a store `default`
 * on another database), the own probe is reported as `database` instead, so neither hides the
 * other.
 */
export function withConfiguredStores(own: readonly StoreProbe[], configured: readonly StoreProbe[]): StoreProbe[] {
  const taken = new Set(configured.map((probe) => probe.name));
  const renamed = own.map((probe) => {
    const name = taken.has(probe.name)
      ? (DATABASE_NAMES.find((candidate) => !taken.has(candidate)) ?? `${probe.name}-own`)
      : probe.name;
    taken.add(name);
    return name === probe.name ? probe : { name, adapter: probe.adapter, ping: () => probe.ping() };
  });
  return [...renamed, ...configured];
}

/** Asks one store, giving up after `timeoutMs` (two seconds in readiness.ts). */
export async function probe(store: StoreProbe, timeoutMs: number): Promise<StoreReport> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    const outcome = await Promise.race([store.ping().then(() => 'ok' as const), expired]);
    if (outcome === 'timeout') return { adapter: store.adapter, ok: false, error: 'timeout' };
    return { adapter: store.adapter, ok: true, latency: Math.round((performance.now() - started) * 100) / 100 };
  } catch (error) {
    const unusable = unusableReason(error);
    if (unusable !== undefined) return { adapter: store.adapter, ok: false, error: 'unusable', reason: unusable };
    const notInstalled = isAppError(error) && error.code === 'APP_STORE_NOT_INSTALLED';
    return { adapter: store.adapter, ok: false, error: notInstalled ? 'not-installed' : 'unreachable' };
  } finally {
    clearTimeout(timer);
  }
}

import type { Sql } from '../../shared/db/connect.ts';

/** Something readiness asks "do you answer?": a database, the shared store. */
export interface StoreProbe {
  name: string;
  adapter: string;
  /** Resolves when the store answered; rejects otherwise. */
  ping(): Promise<void>;
}

export type StoreReport =
  | { adapter: string; ok: true; latency: number }
  | { adapter: string; ok: false; error: 'timeout' | 'unreachable' };

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
  } catch {
    return { adapter: store.adapter, ok: false, error: 'unreachable' };
  } finally {
    clearTimeout(timer);
  }
}

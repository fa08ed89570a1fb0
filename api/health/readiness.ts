import { probe, type StoreProbe, type StoreReport } from './stores.ts';

export type Phase = 'starting' | 'ready' | 'draining';

export interface HealthAnswer {
  status: 'ok' | 'unavailable';
  reason?: string;
  stores: Record<string, StoreReport>;
  shared?: StoreReport;
  uptime: number;
}

export interface ReadinessDeps {
  phase: () => Phase;
  stores: readonly StoreProbe[];
  shared?: StoreProbe;
  startedAt: number;
  /** Per-store time limit (two seconds). */
  timeoutMs?: number;
  /** Why the database is behind this code (shared/db/migrate.ts `schemaCheck`); undefined: it is not. */
  schema?: () => Promise<string | undefined>;
}

/**
 * The readiness answer (`/readyz`, `/healthz`, `/_app/health`): 503 while booting, while
 * shutting down, when a store fails or takes longer than two seconds, when the shared store does
 * not answer, and when the database is behind this code's migrations. Stores are asked in parallel, so the answer never takes much more
 * than the time limit.
 */
export async function readiness(deps: ReadinessDeps): Promise<{ httpStatus: number; body: HealthAnswer }> {
  const timeoutMs = deps.timeoutMs ?? 2000;
  const [reports, shared] = await Promise.all([
    Promise.all(deps.stores.map(async (store) => [store.name, await probe(store, timeoutMs)] as const)),
    deps.shared ? probe(deps.shared, timeoutMs) : Promise.resolve(undefined),
  ]);
  const stores = Object.fromEntries(reports);
  const phase = deps.phase();
  const failed = reports.find(([, report]) => !report.ok);
  // asked of a database that answered: a schema behind the code fails every request it serves
  const behind =
    deps.schema && !failed ? await deps.schema().catch(() => 'the database schema could not be read') : undefined;
  const reason =
    phase === 'starting'
      ? 'starting'
      : phase === 'draining'
        ? 'shutting down'
        : failed
          ? failedReason(failed[0], failed[1])
          : shared && !shared.ok
            ? 'shared store did not answer'
            : behind;
  const body: HealthAnswer = {
    status: reason ? 'unavailable' : 'ok',
    ...(reason ? { reason } : {}),
    stores,
    ...(shared ? { shared } : {}),
    uptime: Math.round((Date.now() - deps.startedAt) / 10) / 100,
  };
  return { httpStatus: reason ? 503 : 200, body };
}

/** Why readiness fails for the store `name`, in words: what to run, what is wrong with it, or that it is away. */
function failedReason(name: string, report: StoreReport): string {
  if (report.ok) return '';
  if (report.error === 'not-installed') return `store ${name} has no endpoint table: run app webhooks:install`;
  if (report.error === 'unusable') return `store ${name} cannot be used: ${report.reason}`;
  return `store ${name} did not answer`;
}

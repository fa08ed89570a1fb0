/**
 * The process's database pool (shared/db/connect.ts), read at each scrape from what the pool
 * counts as it opens and closes connections, so a query costs nothing more:
 * `app_db_pool_connections` (connections open or opening) and `app_db_pool_max_connections` (its
 * size, `db.poolMax`). The driver opens another connection only when every open one is busy and
 * closes one idle for a minute, so a pool held at its size means every connection was busy at once
 * within the last minute, over and over: statements then queue on the connections. It keeps to
 * itself which connections are busy and how long a statement waited for one, so those two cannot
 * say it.
 *
 * `app_db_probe_seconds` asks it from outside: at each scrape a trivial statement (`select 1`) is
 * sent through the pool, and the gauge is how long it took, its wait for a free connection
 * included. A scrape waits for it at most `PROBE_WAIT_MS`; one still waiting is reported by the
 * time it has waited so far, and no other is sent until it ends, so a stuck database costs one
 * statement, not one a scrape. NaN when the last one failed (the database cannot be reached:
 * readiness and the 503s say so). The probe belongs to no request: the scrape's own timeout does
 * not cancel it (shared/db/request-statements.ts).
 */
import { Gauge, type Registry } from 'prom-client';
import type { PoolFigures, Sql } from '../db/connect.ts';
import { outsideRequest } from '../db/request-statements.ts';

/** The longest a scrape waits for the probe's statement before reporting how long it has waited. */
export const PROBE_WAIT_MS = 1_000;

/**
 * Registers the two gauges of a pool on `registry`, from its `figures` (connect.ts `poolFigures`),
 * and with `probe` the probe's gauge through that pool (`probe.sql`, the pool itself); no figures
 * (a client `connect()` did not make) registers nothing.
 */
export function registerPoolGauges(
  registry: Registry,
  figures: PoolFigures | undefined,
  probe?: { sql: Sql; waitMs?: number },
): void {
  if (figures === undefined) return;
  const registers = [registry];
  if (probe) registerProbe(registers, probe.sql, probe.waitMs ?? PROBE_WAIT_MS);
  new Gauge({
    name: 'app_db_pool_connections',
    help: "Connections the process's database pool holds open or is opening (the driver opens one only when every open one is busy)",
    registers,
    collect() {
      this.set(figures.open);
    },
  });
  new Gauge({
    name: 'app_db_pool_max_connections',
    help: "The size of the process's database pool (db.poolMax)",
    registers,
    collect() {
      this.set(figures.max);
    },
  });
}

/** `app_db_probe_seconds` (see the file comment). */
function registerProbe(registers: Registry[], sql: Sql, waitMs: number): void {
  let last = Number.NaN;
  let running: { startedAt: number; ended: Promise<void> } | undefined;
  const start = () => {
    const startedAt = performance.now();
    const probe = {
      startedAt,
      ended: outsideRequest(() => sql`select 1`).then(
        () => {
          last = (performance.now() - startedAt) / 1000;
        },
        () => {
          last = Number.NaN;
        },
      ),
    };
    void probe.ended.then(() => {
      if (running === probe) running = undefined;
    });
    return probe;
  };
  new Gauge({
    name: 'app_db_probe_seconds',
    help: "How long a trivial statement took through the process's database pool at the last scrape, its wait for a free connection included (the time waited so far while it still waits; NaN when it failed)",
    registers,
    async collect() {
      running ??= start();
      const probe = running;
      let timer: NodeJS.Timeout | undefined;
      const ended = await Promise.race([
        probe.ended.then(() => true),
        new Promise<false>((resolve) => {
          timer = setTimeout(resolve, waitMs, false);
        }),
      ]);
      clearTimeout(timer);
      this.set(ended ? last : (performance.now() - probe.startedAt) / 1000);
    },
  });
}

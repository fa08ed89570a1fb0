/**
 * The process's database pool (shared/db/connect.ts), read at each scrape from what the pool
 * counts as it opens and closes connections, so a query costs nothing more:
 * `app_db_pool_connections` (connections open or opening) and `app_db_pool_max_connections` (its
 * size, `db.poolMax`). The driver opens another connection only when every open one is busy and
 * closes one idle for a minute, so a pool held at its size means every connection was busy at once
 * within the last minute, over and over: statements then queue on the connections. It keeps to
 * itself which connections are busy and how long a statement waited for one, so no metric says that.
 */
import { Gauge, type Registry } from 'prom-client';
import type { PoolFigures } from '../db/connect.ts';

/**
 * Registers the two gauges of a pool on `registry`, from its `figures` (connect.ts `poolFigures`);
 * none (a client `connect()` did not make) registers nothing.
 */
export function registerPoolGauges(registry: Registry, figures: PoolFigures | undefined): void {
  if (figures === undefined) return;
  const registers = [registry];
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

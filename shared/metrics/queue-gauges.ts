/**
 * The queue as the database sees it: `app_queue_depth` (deliveries pending or running),
 * `app_queue_oldest_age_seconds` (age of the oldest pending one; 0 when none),
 * `app_dead_deliveries`, `app_workers_alive` (worker processes with a fresh heartbeat,
 * live-workers.ts) and `app_prune_last_success_timestamp_seconds` (when the hourly prune last ran
 * to its end, shared/webhooks/prune-runs.ts; NaN until read once, which no comparison fires on).
 * One read serves all five, cached for `cacheMs` so that a scrape every
 * few seconds by several scrapers costs one query; a database that does not answer leaves the
 * last values (and logs at debug), so a scrape never fails because of it. The oldest pending
 * delivery's age is then the last one read plus the time since: without the database nothing can
 * take that delivery nor queue another, and a frozen age would keep an alert on it from firing
 * for as long as the outage lasts.
 */
import { Gauge, type Registry } from 'prom-client';
import type { Sql } from '../db/connect.ts';
import type { Logger } from '../log/logger.ts';
import { queueFigures } from '../webhooks/deliveries/health.ts';
import { OPERATOR } from '../access/actor.ts';
import { liveWorkers } from './live-workers.ts';
import { lastPruneSuccess } from '../webhooks/prune-runs.ts';

interface QueueFigures {
  depth: number;
  oldestAgeSeconds: number;
  dead: number;
}

/** The queue's figures, the live workers and the last prune that ran to its end, as the gauges show them. */
interface GaugeFigures extends QueueFigures {
  workers: number;
  /** Seconds since the epoch; NaN until read. */
  pruneSucceededAt: number;
}

/** One read of the three figures, every tenant's, as the operator reads them (the console's queue figures, shared/webhooks/deliveries/health.ts). */
export async function readQueueFigures(sql: Sql): Promise<QueueFigures> {
  const figures = await queueFigures({ sql }, OPERATOR);
  return { depth: figures.depth, oldestAgeSeconds: figures.oldestPendingAgeSeconds, dead: figures.dead };
}

/**
 * Registers the five gauges on `registry`, read through `sql` at most every `cacheMs` (default
 * 5 s); a worker is alive while its heartbeat is fresher than `staleAfterMs` (`worker.staleAfter`).
 */
export function registerQueueGauges(
  registry: Registry,
  deps: { sql: Sql; log: Logger; staleAfterMs: number; cacheMs?: number; now?: () => number },
): void {
  const cacheMs = deps.cacheMs ?? 5_000;
  const now = deps.now ?? Date.now;
  let figures: GaugeFigures = { depth: 0, oldestAgeSeconds: 0, dead: 0, workers: 0, pruneSucceededAt: Number.NaN };
  let readAt = -Infinity;
  let reading: Promise<GaugeFigures> | undefined;
  const current = async (): Promise<GaugeFigures> => {
    if (now() - readAt < cacheMs) return figures;
    reading ??= Promise.all([
      readQueueFigures(deps.sql),
      liveWorkers(deps.sql, deps.staleAfterMs),
      // a database not migrated yet (a web process started before its release) has no record:
      // the queue's figures are read all the same
      lastPruneSuccess(deps.sql).catch(() => null),
    ])
      .then(([queue, workers, pruned]) => {
        figures = {
          ...queue,
          workers,
          pruneSucceededAt: pruned === null ? figures.pruneSucceededAt : pruned.getTime() / 1000,
        };
        readAt = now();
        return figures;
      })
      .catch((error: unknown) => {
        deps.log.debug({ err: error }, 'queue metrics: the database did not answer; keeping the last figures');
        const since = Number.isFinite(readAt) ? (now() - readAt) / 1000 : 0;
        return figures.oldestAgeSeconds > 0
          ? { ...figures, oldestAgeSeconds: figures.oldestAgeSeconds + since }
          : figures;
      })
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
  const registers = [registry];
  new Gauge({
    name: 'app_queue_depth',
    help: 'Deliveries pending or running',
    registers,
    async collect() {
      this.set((await current()).depth);
    },
  });
  new Gauge({
    name: 'app_queue_oldest_age_seconds',
    help: 'Age of the oldest pending delivery (0 when none)',
    registers,
    async collect() {
      this.set((await current()).oldestAgeSeconds);
    },
  });
  new Gauge({
    name: 'app_dead_deliveries',
    help: 'Deliveries in the dead letter queue',
    registers,
    async collect() {
      this.set((await current()).dead);
    },
  });
  new Gauge({
    name: 'app_prune_last_success_timestamp_seconds',
    help: 'When the hourly prune last ran to its end (before the first: when the service was installed or upgraded to record it)',
    registers,
    async collect() {
      this.set((await current()).pruneSucceededAt);
    },
  });
  new Gauge({
    name: 'app_workers_alive',
    help: 'Worker processes whose heartbeat is fresher than worker.staleAfter',
    registers,
    async collect() {
      this.set((await current()).workers);
    },
  });
}

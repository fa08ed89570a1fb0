/**
 * Helpers of the webhook tests (not a test file): dependencies over a test database, a logger
 * whose output the test can read, a scripted host lookup, and readers of the queued jobs.
 */
import { Writable } from 'node:stream';
import type { Config } from '../../../shared/config/index.ts';
import type { Sql } from '../../../shared/db/connect.ts';
import { createLogger, type Logger } from '../../../shared/log/logger.ts';
import type { HostLookup } from '../../../shared/webhooks/address-rules.ts';
import type { WebhookDeps } from '../../../shared/webhooks/deps.ts';
import type { TestDatabase } from '../../helpers/database.ts';

/** A logger at `trace` level writing into memory; `text()` is everything written so far. */
export function captureLogger(config: Config): { log: Logger; text(): string; lines(): Record<string, unknown>[] } {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  const log = createLogger({ ...config, logLevel: 'trace' }, { name: 'test', destination });
  return {
    log,
    text: () => chunks.join(''),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

/** A lookup answering from a table (host -> addresses); unknown hosts fail like ENOTFOUND. */
export function scriptedLookup(table: Record<string, string[]>): HostLookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (hostname: string) => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(lookup, { calls });
}

/** Dependencies over the test database; `flags` laid over its config (like configWith). */
export function depsOf(
  db: TestDatabase,
  flags: Record<string, unknown> = {},
  extra: Partial<WebhookDeps> = {},
): WebhookDeps {
  return { config: db.configWith(flags), sql: db.sql, log: db.log, ...extra };
}

export interface QueuedJob {
  task: string;
  payload: { deliveryId: string; endpointId: string; event: string; body: string };
  key: string | null;
  max_attempts: number;
  queue_name: string | null;
}

/** The graphile-worker jobs in the database, oldest first. */
export async function queuedJobs(sql: Sql): Promise<QueuedJob[]> {
  return sql<QueuedJob[]>`
    select t.identifier as task, j.payload, j.key, j.max_attempts, q.queue_name
    from graphile_worker._private_jobs j
    join graphile_worker._private_tasks t on t.id = j.task_id
    left join graphile_worker._private_job_queues q on q.id = j.job_queue_id
    order by j.id`;
}

/** Counts of events, deliveries and jobs (for "nothing was written"). */
export async function counts(sql: Sql): Promise<{ events: number; deliveries: number; jobs: number }> {
  const [row] = await sql<{ events: number; deliveries: number; jobs: number }[]>`
    select (select count(*) from app_events)::int as events,
           (select count(*) from app_webhook_deliveries)::int as deliveries,
           (select count(*) from graphile_worker._private_jobs)::int as jobs`;
  return row;
}

/** Empties the event, delivery and job tables between tests of one file. */
export async function clearQueue(sql: Sql): Promise<void> {
  await sql`delete from app_events`;
  await sql`delete from graphile_worker._private_jobs`;
}

/** Asserts-by-predicate helper for `assert.rejects`: an AppError with this code and status. */
export function appError(
  code: string,
  status?: number,
  check?: (error: { message: string; data?: Record<string, unknown> }) => void,
) {
  return (error: unknown) => {
    const e = error as {
      name?: string;
      code?: string;
      status?: number;
      message: string;
      data?: Record<string, unknown>;
    };
    if (e?.name !== 'AppError')
      throw new Error(`expected an AppError ${code}, got ${String((error as Error)?.stack ?? error)}`);
    if (e.code !== code) throw new Error(`expected code ${code}, got ${e.code}: ${e.message}`);
    if (status !== undefined && e.status !== status) throw new Error(`expected status ${status}, got ${e.status}`);
    check?.(e);
    return true;
  };
}

import { Logger as GraphileLogger } from 'graphile-worker';
import { isConnectionError } from '../shared/db/connection-errors.ts';
import type { Logger } from '../shared/log/logger.ts';

/**
 * graphile-worker's logger for the worker process, writing through our pino logger: the
 * per-job "Completed task" line goes to debug (at a thousand deliveries a second it would be
 * most of the log), and a job in a log line is reduced to its id, task, attempts and delivery id,
 * never its payload (which holds the signed body).
 */
/**
 * What graphile-worker 0.18.0 logs at error level when a graceful stop finds prefetched jobs in
 * its local queue: `setModeReleased()` marks the queue released before `returnJobs()` asks to
 * `background()` the return, which then throws, and the stop goes on through the forceful path.
 * The jobs are not handed back by graphile-worker then; the worker releases them itself after
 * the stop (worker/runner.ts), so during a stop we asked for these are not errors.
 */
const KNOWN_STOP_NOISE = [
  /^Releasing local queue failed: Error: Cannot background something when the queue is already released/,
  /^Deactivation failed: AggregateError: Errors occurred whilst deactivating queue/,
  /^Error occurred during (graceful|forceful) shutdown: Errors occurred whilst deactivating queue/,
  /^Error occurred whilst attempting to release runner options: Errors occurred whilst deactivating queue/,
];

/**
 * graphile-worker's advice at every start when its pool is smaller than the jobs run at once. This
 * worker's runs share their statements (claims, outcomes and wakes in batches, its local queue's
 * fetch), so a few connections carry any concurrency by design (runner.ts `graphilePoolSize`):
 * the line, a warning at each boot, would only alarm an operator.
 */
const POOL_ADVICE =
  /^WARNING: having maxPoolSize \(\d+\) smaller than concurrency \(\d+\) may lead to non-optimal performance\.$/;

/** What `pg` says to a runner still at work on a pool that was ended (the runner an outage replaces). */
const POOL_ENDED = /^Cannot use a pool after calling end on the pool$/;

/** An error without the `client` that `pg` hangs on it (its message, code, stack and socket facts kept). */
function withoutClient(error: unknown): unknown {
  if (!(error instanceof Error) || !('client' in error)) return error;
  const copy = new Error(error.message);
  copy.name = error.name;
  copy.stack = error.stack;
  for (const key of ['code', 'errno', 'syscall', 'address', 'port', 'severity', 'routine'] as const) {
    if (key in error)
      (copy as unknown as Record<string, unknown>)[key] = (error as unknown as Record<string, unknown>)[key];
  }
  return copy;
}

/** How graphile-worker 0.18.0 says its local queue could not fetch jobs (it says so only in its log). */
const FETCH_FAILED = /^Error occurred fetching jobs/;

export function workerGraphileLogger(
  log: Logger,
  options: { stopping?: () => boolean; fetchFailed?: (error: unknown) => void } = {},
): GraphileLogger {
  const child = log.child({ component: 'graphile-worker' });
  return new GraphileLogger(() => (level, message, meta) => {
    if (level === 'error' && options.fetchFailed && FETCH_FAILED.test(message)) options.fetchFailed(meta?.error);
    // two lines a job ("Found task", "Completed task"), read only at debug: dropped before their fields are copied
    if (
      (level === 'debug' || (level === 'info' && message.startsWith('Completed task'))) &&
      !child.isLevelEnabled('debug')
    )
      return;
    if (level === 'error' && options.stopping?.() && KNOWN_STOP_NOISE.some((pattern) => pattern.test(message))) {
      child.debug({ known: 'graphile-worker 0.18.0 local queue release' }, message);
      return;
    }
    if (POOL_ADVICE.test(message)) {
      child.debug(message);
      return;
    }
    const fields: Record<string, unknown> = { ...meta };
    // graphile-worker passes the pg client of a connection error (beside the error, or on it): a
    // whole socket state, dozens of lines per log line, nothing an operator needs
    delete fields.client;
    for (const name of ['error', 'fatalError']) fields[name] = withoutClient(fields[name]);
    const job = fields.job as
      | { id?: unknown; task_identifier?: unknown; attempts?: unknown; payload?: { deliveryId?: unknown } }
      | undefined;
    if (job !== undefined && job !== null) {
      fields.job = { id: job.id, task: job.task_identifier, attempts: job.attempts, delivery: job.payload?.deliveryId };
    }
    // a batch of jobs (as graphile-worker hands them to a failed batch): their ids, never their payloads
    if (Array.isArray(fields.specs))
      fields.specs = (fields.specs as { job?: { id?: unknown } }[]).map((spec) => spec?.job?.id);
    // an outage fails every job alike: one line each, without the stacks graphile-worker puts in it
    // (so does the runner the outage replaces, its pool ended under its last batches)
    const cause = meta?.error ?? meta?.fatalError;
    if (
      level === 'error' &&
      (isConnectionError(cause) || POOL_ENDED.test(String((cause as Error | undefined)?.message)))
    ) {
      child.warn(
        { ...fields, error: undefined, fatalError: undefined, reason: (cause as Error).message },
        message.split('\n')[0],
      );
      return;
    }
    const routine = level === 'info' && message.startsWith('Completed task');
    const method =
      level === 'error' ? 'error' : level === 'warning' ? 'warn' : level === 'info' && !routine ? 'info' : 'debug';
    child[method](fields, message);
  });
}

import { Logger as GraphileLogger } from 'graphile-worker';
import type { Logger } from '../shared/log/logger.ts';

/**
 * graphile-worker's logger for the worker process, writing through our pino logger: the
 * per-job "Completed task" line goes to debug (at a thousand deliveries a second it would be
 * most of the log), and a job in a log line is reduced to its id, task, attempts and delivery id,
 * never its payload (which holds the signed body).
 */
export function workerGraphileLogger(log: Logger): GraphileLogger {
  const child = log.child({ component: 'graphile-worker' });
  return new GraphileLogger(() => (level, message, meta) => {
    const fields: Record<string, unknown> = { ...meta };
    const job = fields.job as { id?: unknown; task_identifier?: unknown; attempts?: unknown; payload?: { deliveryId?: unknown } } | undefined;
    if (job !== undefined && job !== null) {
      fields.job = { id: job.id, task: job.task_identifier, attempts: job.attempts, delivery: job.payload?.deliveryId };
    }
    const routine = level === 'info' && message.startsWith('Completed task');
    const method = level === 'error' ? 'error' : level === 'warning' ? 'warn' : level === 'info' && !routine ? 'info' : 'debug';
    child[method](fields, message);
  });
}

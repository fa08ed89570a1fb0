import type { Task } from 'graphile-worker';
import type { Config } from '../../shared/config/index.ts';
import type { Sql } from '../../shared/db/connect.ts';
import type { Logger } from '../../shared/log/logger.ts';
import { prune } from '../../shared/webhooks/retention.ts';
import { pruneSessions } from '../../shared/accounts/sessions.ts';
import { disableFailingEndpoints } from '../../shared/webhooks/endpoints/auto-disable.ts';

/**
 * `app/prune` (docs/operations.md "Retention"): removes done and dead deliveries and events past their
 * retention (shared/webhooks/retention.ts), disables the endpoints that have failed for
 * `webhooks.disableAfter` (shared/webhooks/endpoints/auto-disable.ts), and removes the rows of
 * ended sign-in sessions (refused anyway; this keeps the table small). Scheduled every hour by graphile-worker's cron, which
 * runs it once across all workers.
 */
export function pruneTask(deps: { config: Config; sql: Sql; log: Logger }): Task {
  return async function pruneRetention() {
    await prune(deps);
    await disableFailingEndpoints(deps);
    const ended = await pruneSessions({ ...deps, now: Date.now });
    if (ended > 0) deps.log.info({ sessions: ended }, 'ended sessions removed');
  };
}

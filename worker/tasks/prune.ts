import type { Task } from 'graphile-worker';
import type { Config } from '../../shared/config/index.ts';
import type { Sql } from '../../shared/db/connect.ts';
import type { Logger } from '../../shared/log/logger.ts';
import type { Metrics } from '../../shared/metrics/registry.ts';
import { prune } from '../../shared/webhooks/retention.ts';
import { recordPruneSuccess } from '../../shared/webhooks/prune-runs.ts';
import { pruneSessions } from '../../shared/accounts/sessions.ts';
import { disableFailingEndpoints } from '../../shared/webhooks/endpoints/auto-disable.ts';

/**
 * `app/prune` (docs/operations.md "Retention"): removes done and dead deliveries and events past their
 * retention (shared/webhooks/retention.ts), disables the endpoints that have failed for
 * `webhooks.disableAfter` (shared/webhooks/endpoints/auto-disable.ts), and removes the rows of
 * ended sign-in sessions (refused anyway; this keeps the table small). Scheduled every hour by graphile-worker's cron, which
 * runs it once across all workers. A run that gets to its end records when (shared/webhooks/prune-runs.ts,
 * read by every process as `app_prune_last_success_timestamp_seconds`); every run is counted in
 * `app_prune_runs_total{outcome}` of the worker that ran it, and a failure is thrown on to
 * graphile-worker, which logs it (the next hour's run starts afresh). A run that finds another
 * prune running (shared/webhooks/prune-lock.ts) does nothing and is counted `skipped`.
 */
export function pruneTask(deps: {
  config: Config;
  sql: Sql;
  log: Logger;
  metrics?: Pick<Metrics, 'pruneRuns' | 'endpointsDisabled' | 'filteredOut'>;
}): Task {
  return async function pruneRetention() {
    try {
      // another prune running (an operator's `app prune`, another worker's run) does this hour's
      // work: this run leaves all of it to that one, and records no success of its own
      if ((await prune(deps)).skipped) {
        deps.metrics?.pruneRuns.inc({ outcome: 'skipped' });
        return;
      }
      await disableFailingEndpoints(deps);
      const ended = await pruneSessions({ ...deps, now: Date.now });
      if (ended > 0) deps.log.info({ sessions: ended }, 'ended sessions removed');
      await recordPruneSuccess(deps.sql);
    } catch (error) {
      deps.metrics?.pruneRuns.inc({ outcome: 'failed' });
      throw error;
    }
    deps.metrics?.pruneRuns.inc({ outcome: 'done' });
  };
}

/**
 * How a request the database could not serve now (a transient problem: api/problem.ts) is logged,
 * the same for REST, the console and GraphQL: one line without a stack, since an outage or a full
 * disk fails every request alike. An unreachable database is a warning (it comes back by itself,
 * and the worker's and readiness's own lines say more); a `DATABASE_URL` the server refuses is
 * named once as a configuration problem; a refusal an operator has to act on (a read-only server,
 * no disk or memory left) is an error carrying the server's own words and SQLSTATE.
 */
import type { Logger } from '../../shared/log/logger.ts';
import { logConfigurationProblem } from '../../shared/db/configuration-problem-log.ts';
import { pgRefusal } from '../../shared/errors/pg-refusals.ts';

export function logTransient(log: Logger, error: unknown): void {
  if (logConfigurationProblem(log, error)) return;
  const reason = error instanceof Error ? error.message : String(error);
  const refusal = pgRefusal(error);
  if (refusal === undefined) {
    log.warn({ status: 503, reason }, 'request refused: the database cannot be reached');
    return;
  }
  const fields = { status: 503, code: refusal.code, sqlstate: (error as { code: string }).code, reason };
  if (refusal.operatorMustAct) log.error(fields, 'request refused: the database cannot do this work now');
  else log.warn(fields, 'request refused: the database gave up on it while serving others');
}

/**
 * What the web and worker entry points call once at boot for webhooks (`webhooks.install`, and the
 * check of the secrets at rest). Neither blocks the boot: a database that is down must not stop the
 * web process (`/livez` keeps answering).
 */
import type { Config } from '../config/index.ts';
import type { Logger } from '../log/logger.ts';
import type { WebhookDeps } from './deps.ts';
import { isConnectionError } from '../db/connection-errors.ts';
import { isUnsupportedServer } from '../db/server-version.ts';
import { isAppError } from '../errors/app-error.ts';
import { logConfigurationProblem } from '../db/configuration-problem-log.ts';
import { ensureWebhookTables } from './install.ts';

/** The boot warning when webhook secrets are stored unencrypted. */
export const UNENCRYPTED_SECRETS_WARNING = 'webhook signing secrets are stored unencrypted: set APP_SECRET';

/**
 * Logs, once per call (entry points call it once per process), that signing secrets are stored
 * unencrypted because `config.secret` is not set. Answers whether it warned. `onlyInProduction`
 * (the CLI's writes) keeps it quiet outside production, where no secret is ordinary and every
 * command repeating it would only be noise; the web and worker boots say it once either way.
 */
export function warnIfSecretsUnencrypted(
  deps: { config: Pick<Config, 'secret' | 'env'>; log: Logger },
  options: { onlyInProduction?: boolean } = {},
): boolean {
  if (deps.config.secret) return false;
  if (options.onlyInProduction && deps.config.env !== 'production') return false;
  deps.log.warn(UNENCRYPTED_SECRETS_WARNING);
  return true;
}

export interface BootInstallOptions {
  /** First delay between attempts (default 1 s); doubles up to `maxDelayMs`. */
  initialDelayMs?: number;
  /** Longest delay between attempts (default 30 s). */
  maxDelayMs?: number;
  /** Stops retrying (shutdown); the promise then resolves false. */
  signal?: AbortSignal;
}

/**
 * With `webhooks.install` true (the default outside production), makes sure the webhook tables
 * exist (`ensureWebhookTables`), retrying with doubling delays (1 s to 30 s) until the database
 * answers. Meant to be started without awaiting it, so the process serves `/livez` meanwhile.
 * Resolves true once installed, false when `webhooks.install` is false or `signal` aborted.
 * Never rejects: a failure other than an unreachable database is logged as an error and retried
 * too (an operator may fix it without a restart), except a server older than the minimum
 * (shared/db/server-version.ts), which resolves false at once.
 */
export async function ensureWebhookTablesAtBoot(
  deps: Pick<WebhookDeps, 'config' | 'sql' | 'log' | 'endpoints'>,
  options: BootInstallOptions = {},
): Promise<boolean> {
  if (!deps.config.webhooks.install) return false;
  const maxDelay = options.maxDelayMs ?? 30_000;
  let delay = options.initialDelayMs ?? 1000;
  for (let attempt = 1; ; attempt++) {
    if (options.signal?.aborted) return false;
    try {
      const result = await ensureWebhookTables(deps);
      if (result.applied.length === 0) deps.log.info({ attempt }, 'webhook tables up to date');
      else deps.log.info({ applied: result.applied, attempt }, 'webhook tables installed');
      return true;
    } catch (error) {
      if (options.signal?.aborted) return false;
      // a server too old stays so: the process's own check of the server says it and stops it
      if (isUnsupportedServer(error)) return false;
      logInstallFailure(deps.log, error, { attempt, retryInMs: delay });
    }
    const stop = await sleep(delay, options.signal);
    if (stop) return false;
    delay = Math.min(delay * 2, maxDelay);
  }
}

/**
 * One line per failed attempt: an unreachable database is a warning without a stack, a
 * configuration the server refuses is named once (logConfigurationProblem; retried all the same,
 * as it may be fixed meanwhile), anything else is an error with its stack.
 */
function logInstallFailure(log: Logger, error: unknown, retry: { attempt: number; retryInMs: number }): void {
  if (logConfigurationProblem(log, error)) return;
  // the store's first: its error wraps the socket error it met, which would read as the database's
  if (isAppError(error) && error.code === 'APP_STORE_UNAVAILABLE') {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    log.warn(
      { ...retry, reason: `${error.message}${cause}` },
      'endpoint store not reachable; its table will be installed once it answers',
    );
  } else if (isConnectionError(error)) {
    log.warn(
      { ...retry, reason: (error as Error).message },
      'database not reachable; webhook tables will be installed once it answers',
    );
  } else {
    log.error({ err: error, ...retry }, 'installing the webhook tables failed; retrying');
  }
}

/** Waits `ms`; answers true when `signal` aborted meanwhile. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(true);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(false);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(true);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * What the console's tests share: a web process and the real delivery worker on this file's
 * database (the fast settings of test/worker/helpers.ts, loopback receivers allowed), users made
 * through the core, receivers on 127.0.0.1 whose answer a test sets (test/api/webhooks-api/helpers.ts),
 * and a cookie-keeping client (test/api/accounts/helpers.ts). `close()` stops the worker before the
 * database goes; call it from the file's describe `after`.
 */
import type { WebDeps } from '../../../api/server.ts';
import { createLogger } from '../../../shared/log/logger.ts';
import { startWorker } from '../../../worker/runner.ts';
import { tasks } from '../../../worker/tasks/index.ts';
import { startAccounts } from '../accounts/helpers.ts';
import { FAST, flags as merge, harness } from '../../worker/helpers.ts';
import { receiver } from '../webhooks-api/helpers.ts';

export { Browser, PASSWORD } from '../accounts/helpers.ts';

export async function startConsole(extra: Record<string, unknown> = {}, deps: Partial<WebDeps> = {}) {
  const settings = merge(
    FAST,
    { webhooks: { maxAttempts: 2, backoff: { base: '20ms', factor: 1, max: '50ms', jitter: 0 } } },
    extra,
  );
  const app = await startAccounts(settings, deps);
  // the web process and the receivers are stopped by their helpers' own hooks
  const h = harness(app.db, settings);
  const quiet = createLogger({ ...h.config, logLevel: 'error' }, { name: 'test-worker' });
  const worker = await startWorker({ config: h.config, log: quiet }, tasks);
  let stopped: Promise<void> | undefined;

  return {
    ...app,
    receiver,
    /** Stops the delivery worker (once). */
    close: () => (stopped ??= worker.stop()),
  };
}

/** The pages a signed-out browser opens (a link's page with a token no link has: it asks for the link again). */
export const SIGNED_OUT_PAGES = [
  '/login',
  '/forgot-password',
  '/register',
  `/reset-password?token=${'x'.repeat(80)}`,
  `/confirm-signup?token=${'x'.repeat(80)}`,
];

import type { ConfigSources } from '../shared/config/index.ts';
import { configForProcess } from '../shared/config/for-process.ts';
import { installDriverCrashGuard } from '../shared/db/driver-crash-guard.ts';
import { listenFailureText } from '../shared/log/listen-failure.ts';
import { requireSupportedServerOnceReachable, serverVersionText } from '../shared/db/server-version.ts';
import { startTelemetry } from '../shared/telemetry/start.ts';
import { ensureWebhookTablesAtBoot, warnIfSecretsUnencrypted } from '../shared/webhooks/boot.ts';
import type { Module } from './lifecycle.ts';
import { createWebServer, type WebServer } from './server.ts';

/**
 * Runs the web process: config resolved once (every problem listed, exit 1), logger, traces
 * (when configured; their last spans flushed at shutdown, once the requests drained), server,
 * signal handling (SIGINT/SIGTERM start the graceful shutdown unless `shutdown.signals` is
 * false; a second signal stops at once with exit code 1). `setup` lets a caller mount more
 * before the server starts.
 */
export async function runWeb(
  options: { sources?: ConfigSources; setup?: (web: WebServer) => void | Promise<void> } = {},
): Promise<WebServer> {
  const { config, log } = configForProcess('web', options.sources);
  installDriverCrashGuard(log);

  warnIfSecretsUnencrypted({ config, log });
  // traces first: started before anything makes spans; stopped (the last spans flushed) after the requests drained
  const telemetry = await startTelemetry({ config, log }, 'web');
  const web = createWebServer(
    { config, log, tracing: telemetry.enabled },
    {
      stores: [{ name: 'telemetry', stop: () => telemetry.shutdown() }, serverVersionCheck()],
      queue: [webhookInstall()],
    },
  );
  await options.setup?.(web);
  if (config.shutdown.signals) {
    let signalled = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (signalled) {
        log.warn({ signal }, 'second signal: stopping now');
        process.exit(1);
      }
      signalled = true;
      void web.shutdown(signal).then((code) => process.exit(code));
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  }
  try {
    await web.start();
  } catch (error) {
    log.fatal(
      { err: error },
      listenFailureText(error, { what: 'web process', host: config.host, port: config.port, portVariable: 'PORT' }),
    );
    process.exit(1);
  }
  return web;

  /**
   * The server's version, checked once the database answers (shared/db/server-version.ts): a
   * PostgreSQL older than the minimum stops the process with exit code 1 and one line saying so.
   * In the background, as the install: a database that is down does not hold the boot.
   */
  function serverVersionCheck(): Module {
    const stop = new AbortController();
    return {
      name: 'server-version',
      start: async () => {
        void requireSupportedServerOnceReachable(web.sql, { signal: stop.signal }).then(
          (version) => {
            if (version !== undefined)
              log.info({ serverVersionNum: version }, `database server: PostgreSQL ${serverVersionText(version)}`);
          },
          (error: Error) => {
            log.fatal(`web process stopping: ${error.message}`);
            process.exit(1);
          },
        );
      },
      stop: async () => stop.abort(),
    };
  }

  /** `webhooks.install`: tables made at boot, retried in the background until the database answers. */
  function webhookInstall(): Module {
    const stop = new AbortController();
    return {
      name: 'webhooks-install',
      start: async () => {
        void ensureWebhookTablesAtBoot(
          { config, log, sql: web.sql, endpoints: web.endpoints },
          { signal: stop.signal },
        );
      },
      stop: async () => stop.abort(),
    };
  }
}

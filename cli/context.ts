import { resolveConfig, type Config } from '../shared/config/index.ts';
import { connect, type Sql } from '../shared/db/connect.ts';
import { readLocalState, type LocalState } from '../shared/db/local-database.ts';
import {
  isUnsupportedServer,
  requireSupportedServer,
  type UnsupportedServerError,
} from '../shared/db/server-version.ts';
import { AppError } from '../shared/errors/app-error.ts';
import { createLogger, type Logger } from '../shared/log/logger.ts';
import { productionRefusal } from '../shared/security/production-guard.ts';
import { startTelemetry, type Telemetry } from '../shared/telemetry/start.ts';
import { isDatabaseUnreachable } from './failure.ts';
import { ownStderr, type CliIo } from './io.ts';
import { terminalText } from './support/text-forms.ts';
import type { EndpointStore } from '../shared/webhooks/endpoint-stores/types.ts';
import { endpointStoresOnDemand } from '../shared/webhooks/endpoint-stores/on-demand.ts';
import type { EndpointStores } from '../shared/webhooks/endpoint-stores/open.ts';

/** What every command gets: the config, a lazily opened database client, a logger and where it runs. */
export interface CliContext {
  config: Config;
  log: Logger;
  /** The run's streams and environment (cli/io.ts). */
  io: CliIo;
  /** Sets the exit code of a command that printed its answer but did not succeed. */
  exit(code: number): void;
  /** Opens the pool on first use. */
  sql(): Sql;
  /**
   * The configuration, for a command that opens the database on its own (`migrate`), once the
   * checks `sql()` makes have passed: the production guard and a database to open.
   */
  databaseConfig(): Config;
  /** The store of the endpoint table (`webhooks.store`), opened on first use. */
  endpoints(): EndpointStore;
  /** Every configured store (`stores`), each opened on first use. */
  stores(): EndpointStores;
  /** Prints records: one JSON document with --json, else the text form, its control characters escaped (support/text-forms.ts). */
  print(records: unknown, text: () => string): void;
  /**
   * The web process's origin, for the links a command prints when `publicUrl` is unset (which
   * wins; shared/accounts/password-links.ts `linkBase`): the one the running `npm start` whose
   * database the CLI uses recorded, else `http://localhost:<port>`.
   */
  webOrigin: string;
  /** The command's tracing (shared/telemetry/start.ts): an emit from the command line starts a trace of its own. */
  telemetry: Telemetry;
  /**
   * A logger named `name` at the configured level, for what a command runs inside it (the worker
   * of `jobs`): its lines go where the CLI's own go, readable like them in development.
   */
  logger(name: string): Logger;
}

/**
 * The context of one command. In production a command that opens the database refuses to run
 * when the production guard refuses the config (no or a short `APP_SECRET`;
 * shared/security/production-guard.ts), so the release (`app migrate`) stops a deploy that would
 * store secrets unencrypted; commands without the database (`config`, `openapi`) are unaffected,
 * and `productionGuard: false` lets `audit` read the database to say what is wrong.
 */
export async function createCliContext(options: {
  json: boolean;
  io: CliIo;
  productionGuard?: boolean;
  /** What a running `npm start` recorded (default: its record in `.data/postgres.json`). */
  localState?: () => LocalState | undefined;
}): Promise<{
  context: CliContext;
  /** Closes what the command opened; `failure` is what the command threw, if it did. */
  close(failure?: unknown): Promise<void>;
}> {
  const { io } = options;
  const env = { ...io.env };
  // With no database configured (DATABASE_URL, or `databaseUrl` in the APP_CONFIG file), the CLI
  // uses the embedded PostgreSQL that `npm start` is running, so a newcomer's second terminal
  // needs no setup; when that `npm start` was given `--allow-local`, the CLI allows local
  // receivers as its processes do, and its links lead to its web process. Never in production,
  // where a command that opens the database needs DATABASE_URL (the production guard says so).
  const own = resolveConfig({ env });
  const local =
    own.config.databaseUrl || own.config.env === 'production' ? undefined : (options.localState ?? readLocalState)();
  if (local) {
    env.DATABASE_URL = local.url;
    if (local.allowLocal) {
      env.APP_WEBHOOKS__ALLOW_HTTP ??= 'true';
      env.APP_WEBHOOKS__ALLOW_PRIVATE ??= 'true';
    }
  }
  const { config, warnings } = local ? resolveConfig({ env }) : own;
  if (config.databaseUrl)
    io.database = {
      url: config.databaseUrl,
      named: local
        ? 'the embedded PostgreSQL of npm start'
        : io.env.DATABASE_URL
          ? 'DATABASE_URL'
          : io.env.APP_DATABASE_URL
            ? 'APP_DATABASE_URL'
            : `databaseUrl of ${io.env.APP_CONFIG ?? 'the configuration'}`,
    };
  const refusal = options.productionGuard === false ? undefined : productionRefusal(config);
  // stderr, as stdout holds only what the command prints; the process's own stderr is left to
  // the logger, which writes it readable in development (pino-pretty), JSON otherwise
  const loggerOn = (level: Config['logLevel'], name: string) =>
    createLogger(
      { ...config, logLevel: level },
      { name, stderr: true, ...(ownStderr(io) ? {} : { destination: io.stderr }) },
    );
  // the CLI's own lines: warnings and worse unless asked for more than info
  const log = loggerOn(config.logLevel === 'info' ? 'warn' : config.logLevel, 'cli');
  for (const warning of warnings) log.warn(warning);
  const telemetry = await startTelemetry({ config, log }, 'cli');
  let pool: Sql | undefined;
  /** The refusal of a server older than the minimum (shared/db/server-version.ts), once the pool is opened. */
  let serverCheck: Promise<UnsupportedServerError | undefined> | undefined;
  let stores: EndpointStores | undefined;
  const context: CliContext = {
    config,
    log,
    io,
    webOrigin: local?.webUrl ?? `http://localhost:${config.port}`,
    exit(code) {
      io.exitCode = code;
    },
    databaseConfig() {
      if (refusal !== undefined) throw new Error(refusal);
      if (!config.databaseUrl) {
        throw new AppError(
          503,
          'no database: set DATABASE_URL, or run `npm start` in another terminal (it starts a local PostgreSQL the CLI finds by itself)',
          {
            code: 'APP_DATABASE_UNAVAILABLE',
          },
        );
      }
      return config;
    },
    sql() {
      if (pool === undefined) {
        pool = connect(context.databaseConfig(), log, { max: 2, name: 'app-cli' });
        // the pool's first statement; its verdict is the command's at close
        serverCheck = requireSupportedServer(pool).then(
          () => undefined,
          (error: unknown) => (isUnsupportedServer(error) ? error : undefined),
        );
      }
      return pool;
    },
    endpoints() {
      return context.stores().endpoints;
    },
    stores() {
      // a store that does not answer fails the command with one line naming the store and why
      // (cli/failure.ts); the guard's log line, with its stack, would only repeat it
      stores ??= endpointStoresOnDemand(config, { sql: context.sql(), log }, { logFailures: false });
      return stores;
    },
    print(records, text) {
      io.stdout.write(options.json ? `${JSON.stringify(records, null, 2)}\n` : `${terminalText(text())}\n`);
    },
    telemetry,
    logger: (name) => loggerOn(config.logLevel, name),
  };
  return {
    context,
    close: async (failure?: unknown) => {
      // a server older than the minimum fails the command with its one line (exit 1), whatever the
      // command met there (a table missing: the migrations refuse such a server); not awaited when
      // the database cannot be reached, as the check cannot end before the pool does
      const unreachable = failure !== undefined && isDatabaseUnreachable(failure);
      const refused = unreachable ? undefined : await serverCheck;
      await stores?.close();
      // The pool's statements get 5 s to finish, unless the command failed because the database
      // cannot be reached: none can finish then, and the queries the command left queued would
      // each wait for an attempt of its own (a connect timeout each, from a database that does not
      // answer), after which the driver's end() waits out the whole grace anyway (a connection it
      // ended while connecting never reports ending once that attempt fails). Ended at once, they
      // fail together and the command reports as soon as its first query did.
      await pool?.end({ timeout: unreachable ? 0 : 5 });
      await telemetry.shutdown();
      if (refused) throw refused;
    },
  };
}

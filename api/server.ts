import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa, { type Middleware } from 'koa';
import type { Config } from '../shared/config/index.ts';
import { connect, type Sql } from '../shared/db/connect.ts';
import type { Logger } from '../shared/log/logger.ts';
import { postgresProbe, type StoreProbe } from './health/stores.ts';
import { Lifecycle, type Module } from './lifecycle.ts';
import { errors } from './middleware/errors.ts';
import { health } from './middleware/health.ts';
import { notFound } from './middleware/not-found.ts';
import { requestId } from './middleware/request-id.ts';
import { timeout } from './middleware/timeout.ts';

export interface WebDeps {
  config: Config;
  log: Logger;
  /** The service's own queries (a pool); made from config when omitted. */
  sql?: Sql;
  /** Stores readiness asks (default: the `default` PostgreSQL store). */
  stores?: StoreProbe[];
  shared?: StoreProbe;
}

export interface WebServer {
  app: Koa;
  server: Server;
  lifecycle: Lifecycle;
  sql: Sql;
  /** Listens (on `config.port`, or the given port; 0 picks a free one) and boots the modules. */
  start(port?: number): Promise<AddressInfo>;
  /** Graceful shutdown; resolves to the exit code. */
  shutdown(signal?: string): Promise<number>;
  /** Custom middleware, mounted in the application slot before the router. */
  addMiddleware(middleware: Middleware): void;
}

/**
 * Composes the web process: Koa with the spec's middleware order, the HTTP server, the
 * readiness phase and the modules it stops at shutdown. Listening happens before the boot so
 * `/livez` answers at once and `/readyz` says `starting` until the boot ends.
 */
export function createWebServer(deps: WebDeps, modules: Module[] = []): WebServer {
  const { config, log } = deps;
  const sql = deps.sql ?? connect(config, log, { name: 'app-web' });
  const probeSql = deps.stores ? undefined : connect(config, log, { max: 1, name: 'app-web-health' });
  const stores = deps.stores ?? [postgresProbe('default', probeSql as Sql)];
  const lifecycle = new Lifecycle(config, log);
  const startedAt = Date.now();
  const customMiddleware: Middleware[] = [];

  const app = new Koa({ proxy: config.trustProxy });
  app.silent = true; // errors are logged by the error middleware, once
  app.use(requestId());
  app.use(errors({ log, exposeInternals: config.env === 'development' }));
  app.use(health({ phase: () => lifecycle.phase, stores, shared: deps.shared, startedAt }));
  app.use(timeout({ ms: config.requestTimeout }));
  app.use(notFound());
  app.use(function custom(ctx, next) {
    // addMiddleware() may be called after composition: run the list as if mounted with app.use
    const dispatch = (index: number): Promise<void> =>
      index < customMiddleware.length ? Promise.resolve(customMiddleware[index](ctx, () => dispatch(index + 1))) : next();
    return dispatch(0);
  });
  const server = createServer(app.callback());
  server.keepAliveTimeout = 5000;
  lifecycle.watch(server);

  const ownModules: Module[] = [
    { name: 'database', stop: () => sql.end({ timeout: 5 }) },
    ...(probeSql ? [{ name: 'health-probe', stop: () => probeSql.end({ timeout: 1 }) }] : []),
    ...modules,
  ];

  return {
    app,
    server,
    lifecycle,
    sql,
    addMiddleware: (middleware) => void customMiddleware.push(middleware),
    async start(port = config.port) {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, config.host, () => {
          server.off('error', reject);
          resolve();
        });
      });
      const address = server.address() as AddressInfo;
      log.info({ port: address.port, env: config.env }, 'web process listening');
      await lifecycle.boot(ownModules);
      log.info('web process ready');
      return address;
    },
    shutdown: (signal = 'shutdown') => lifecycle.shutdown(server, signal),
  };
}

import { createServer, type Server } from 'node:http';
import { schemaCheck } from '../shared/db/migrate.ts';
import type { AddressInfo } from 'node:net';
import Koa, { type Middleware } from 'koa';
import { answerClientError } from './http/client-error.ts';
import { answerUnmetExpectation } from './http/expectation.ts';
import type { Config } from '../shared/config/index.ts';
import { connect, poolFigures, type Sql } from '../shared/db/connect.ts';
import type { Logger } from '../shared/log/logger.ts';
import { openSharedStore } from '../shared/stores/open.ts';
import type { SharedStore } from '../shared/stores/types.ts';
import { plugGraphql } from './graphql/plug.ts';
import type { GraphqlService } from './graphql/service.ts';
import { endpointStoreProbes, postgresProbe, withConfiguredStores, type StoreProbe } from './health/stores.ts';
import { endpointStoresOnDemand } from '../shared/webhooks/endpoint-stores/on-demand.ts';
import type { EndpointStores } from '../shared/webhooks/endpoint-stores/open.ts';
import type { EndpointStore } from '../shared/webhooks/endpoint-stores/types.ts';
import { plugIdempotency } from './idempotency/plug.ts';
import { Lifecycle, withModules, type BootModules, type Module } from './lifecycle.ts';
import { apiVersion } from './middleware/api-version.ts';
import { bodyParsers } from './middleware/body-parsers.ts';
import { compression } from './middleware/compression.ts';
import { cors } from './middleware/cors.ts';
import { errorHelpers } from './middleware/error-helpers.ts';
import { errors, problemOptions } from './middleware/errors.ts';
import { forwardedNotice } from './middleware/forwarded-notice.ts';
import { httpMetrics } from './middleware/http-metrics.ts';
import { serverSpan } from './middleware/server-span.ts';
import { metricsEndpoint } from './middleware/metrics-endpoint.ts';
import { createMetrics, type Metrics } from '../shared/metrics/registry.ts';
import { registerQueueGauges } from '../shared/metrics/queue-gauges.ts';
import { registerPoolGauges } from '../shared/metrics/pool-gauges.ts';
import { halGuard } from './middleware/hal-guard.ts';
import { health, HEALTH_PATHS, READINESS_PATHS } from './health/middleware.ts';
import { jsonAnswers } from './middleware/json-answers.ts';
import { notFound } from './middleware/not-found.ts';
import { pagination } from './middleware/pagination.ts';
import { queryLimit } from './middleware/query-limit.ts';
import { requestId } from './middleware/request-id.ts';
import { roleGuard } from './middleware/role-guard.ts';
import { secureHeaders } from './middleware/secure-headers.ts';
import { timeout } from './middleware/timeout.ts';
import { versionGuard } from './middleware/version-guard.ts';
import { plugRateLimits } from './rate-limit/plug.ts';
import { createPipeline, type AppSlot, type RouteMiddlewareFactory, type RouteSlot } from './pipeline.ts';
import { buildApi, type Api, type ApiDefinition } from './model-framework/routing/api.ts';
import { plugAuthentication } from './auth/plug.ts';
import { plugAccounts } from './accounts/plug.ts';
import { consoleErrorPage, plugConsole } from './console/plug.ts';
import { pageHelpers } from './console/pages/helpers.ts';
import type { AccountDeps } from '../shared/accounts/deps.ts';
import { plugWebhooksApi } from './webhooks-api/plug.ts';
import { createTokenCache, type TokenCache } from '../shared/tokens/cache.ts';
import { withProductApis } from './product-apis.ts';
import { modelEventSink } from './model-framework/data/model-events.ts';
import { discoverApi } from './model-framework/routing/discover.ts';
import { webhooksContext } from './model-framework/routing/webhooks-context.ts';

export interface WebDeps {
  config: Config;
  log: Logger;
  /** The service's own queries (a pool); made from config when omitted. */
  sql?: Sql;
  /** Stores readiness asks (default: the `default` PostgreSQL store). */
  stores?: StoreProbe[];
  /**
   * Stores readiness asks besides those: the configured endpoint stores (`endpointStoreProbes`
   * of the opened `stores`), each listed under its name.
   */
  configuredStores?: readonly StoreProbe[];
  /** The configured endpoint stores (default: `stores` of the config, each opened on first use). */
  endpointStores?: EndpointStores;
  shared?: StoreProbe;
  /** Idempotency records and rate-limit counters (default: the backend `config.shared` names; in process for `none`). */
  sharedStore?: SharedStore;
  /** The application's models, routes and controllers; discovered in `api/` at start when omitted. */
  api?: ApiDefinition;
  /** The process's metrics (default: a registry of its own, with the queue gauges read through `sql` and the pool's gauges). */
  metrics?: Metrics;
  /** The clock of sessions, password links, the sign-in lockout and the token cache's entries (default `Date.now`; tests move it). */
  now?: () => number;
  /** The process traces (shared/telemetry/start.ts): every request gets a server span. */
  tracing?: boolean;
}

export interface WebServer {
  app: Koa;
  server: Server;
  lifecycle: Lifecycle;
  sql: Sql;
  /** The store of the endpoint table (`webhooks.store`). */
  endpoints: EndpointStore;
  /** Listens (on `config.port`, or the given port; 0 picks a free one) and boots the modules. */
  start(port?: number): Promise<AddressInfo>;
  /** Graceful shutdown; resolves to the exit code. */
  shutdown(signal?: string): Promise<number>;
  /** Custom middleware, mounted in the `custom` slot (after the limiters, before the router). */
  addMiddleware(middleware: Middleware): void;
  /** Adds middleware to a named slot of the order (api/pipeline.ts), e.g. `plug('user', authenticate())`. */
  plug(slot: AppSlot, middleware: Middleware): void;
  /** Adds a per-route middleware factory to a route slot, e.g. `plugRoute('routeLimiter', (route) => ...)`. */
  plugRoute(slot: RouteSlot, factory: RouteMiddlewareFactory): void;
  /** The application API (models, routes); undefined until built (at once when `deps.api` is given, else at start). */
  readonly api: Api | undefined;
  /** The GraphQL service (`graphql.run`…); built with the API; undefined when `config.graphql` is false. */
  readonly graphql: GraphqlService | undefined;
  /** The process's Prometheus metrics (served at `/metrics` when `metrics.token` is set). */
  readonly metrics: Metrics;
  /** The account functions' dependencies of this process (its sessions' clock, its lockout store). */
  readonly accounts: AccountDeps;
  /** The API tokens this process has looked up (undefined when `auth.tokenCache` is 0). */
  readonly tokenCache: TokenCache | undefined;
}

/**
 * Composes the web process: Koa with the middleware order of api/pipeline.ts, the HTTP
 * server, the readiness phase and the modules it stops at shutdown. Listening happens before
 * the boot so `/livez` answers at once and `/readyz` says `starting` until the boot ends.
 */
export function createWebServer(deps: WebDeps, modules: Module[] | Partial<BootModules> = []): WebServer {
  const { config, log } = deps;
  const sql = deps.sql ?? connect(config, log, { name: 'app-web' });
  const endpointStores = deps.endpointStores ?? endpointStoresOnDemand(config, { sql, log });
  const probeSql = deps.stores ? undefined : connect(config, log, { max: 1, name: 'app-web-health' });
  const stores = withConfiguredStores(
    deps.stores ?? [postgresProbe('default', probeSql as Sql)],
    deps.configuredStores ?? endpointStoreProbes(endpointStores),
  );
  const lifecycle = new Lifecycle(config, log);
  const startedAt = Date.now();
  const pipeline = createPipeline();
  let api: Api | undefined;
  const metrics = deps.metrics ?? createMetrics({ process: 'web' });
  if (!deps.metrics) {
    registerQueueGauges(metrics.registry, { sql, log, staleAfterMs: config.worker.staleAfter });
    registerPoolGauges(metrics.registry, poolFigures(sql), { sql });
  }
  const sharedStore =
    deps.sharedStore ??
    openSharedStore({
      config,
      log,
      now: deps.now,
      watch: {
        bytes: (bytes) => metrics.sharedMemoryBytes.set(bytes),
        evicted: (kind) => metrics.sharedMemoryEvictions.inc({ kind }),
      },
    });
  const sharedProbe = deps.shared ?? (config.shared.backend === 'none' ? undefined : sharedStore);
  const fixedPaths = ['/livez', ...READINESS_PATHS, '/metrics', ...(config.graphql ? [config.graphql.path] : [])];

  pipeline.use('requestId', requestId());
  pipeline.use('requestId', forwardedNotice({ config, log }));
  pipeline.use('requestId', httpMetrics({ metrics, fixedPaths })); // outside the error handler: sees the final status
  if (deps.tracing) pipeline.use('requestId', serverSpan({ fixedPaths })); // likewise: the span has the final status
  const problems = problemOptions(config, log);
  pipeline.use('errors', errors(problems));
  pipeline.use('timeout', timeout({ ms: config.requestTimeout, log }));
  pipeline.use('secureHeaders', secureHeaders({ env: config.env, helmet: config.helmet }));
  pipeline.use('compression', compression({ production: config.env === 'production' }));
  pipeline.use('jsonAnswers', jsonAnswers());
  pipeline.use('cors', cors(config.cors));
  pipeline.use('bodyParsers', queryLimit({ maxBytes: config.api.maxQueryLength, exempt: HEALTH_PATHS }));
  pipeline.use(
    'bodyParsers',
    bodyParsers({
      limit: config.bodyLimit,
      inFlight: config.bodiesInFlight,
      ownMediaTypes: new Set(config.graphql ? [config.graphql.path] : []),
    }),
  ); // the GraphQL path answers its own 415
  pipeline.use('errorHelpers', errorHelpers());
  pipeline.use('apiVersion', apiVersion());
  pipeline.use('pagination', pagination(config.api));
  pipeline.use(
    'health',
    health({
      phase: () => lifecycle.phase,
      stores,
      shared: sharedProbe,
      startedAt,
      ...(probeSql ? { schema: schemaCheck(probeSql) } : {}),
    }),
  );
  pipeline.use('health', metricsEndpoint({ registry: metrics.registry, token: config.metrics.token })); // before the limiters: never limited
  pipeline.use('notFound', notFound());
  pipeline.use('router', function router(ctx, next) {
    return api ? api.router(ctx, next) : next();
  });
  // the account paths, after the application's routes: an application may declare its own sign-in page
  // the API tokens this process has looked up (auth.tokenCache; 0: none), dropped on every change's notice
  const tokenCache =
    config.auth.tokenCache > 0
      ? createTokenCache({ sql, log }, { ttlMs: config.auth.tokenCache, now: deps.now })
      : undefined;
  const tokens = { sql, log, config, ...(tokenCache ? { tokenCache } : {}) };
  const accountsWeb = plugAccounts(pipeline, {
    config,
    log,
    sql,
    shared: sharedStore,
    now: deps.now,
    graphql: () => graphql?.service,
    tokenCache,
  });
  pipeline.use('errorHelpers', pageHelpers(accountsWeb.pages)); // ctx.render, ctx.negotiate
  problems.page = consoleErrorPage(accountsWeb.pages); // problems on console paths become console pages for browsers
  pipeline.useRoute('versionGuard', versionGuard);
  pipeline.useRoute('roleGuard', roleGuard);
  const warned = new Set<string>();
  pipeline.useRoute('halGuard', (route) => halGuard({ route, strict: config.api.strict, log, warned }));
  // limiters (authLimiter, globalLimiter, routeLimiter) and idempotency (route slot)
  const guards = [
    plugRateLimits(pipeline, { config, log, shared: sharedStore }),
    plugIdempotency(pipeline, { config, log, shared: sharedStore }),
  ];
  // bearer tokens and sign-in sessions, then CSRF (user slot); the webhook API's dependencies (endpoint cache)
  plugAuthentication(pipeline, { config, accounts: accountsWeb.accounts });
  const webhooksApi = plugWebhooksApi({ config, sql, log, endpoints: endpointStores.endpoints, metrics });
  pipeline.use('errorHelpers', webhooksContext(webhooksApi.webhooks)); // ctx.webhooks: the same core, as the caller

  // GraphQL in its slot, the schema built from the models with the API
  const graphql = plugGraphql(pipeline, { config, log, sql, webhooks: webhooksApi.webhooks });
  // the console: pages after the account paths, on the same core functions
  plugConsole(pipeline, {
    config,
    log,
    webhooks: webhooksApi.webhooks,
    accounts: accountsWeb.accounts,
    tokens,
    pages: accountsWeb.pages,
    shared: sharedStore,
  });
  const build = (definition: ApiDefinition) => {
    // the product's own APIs (webhooks, tokens) are mounted here, beside what the application declares
    const events = modelEventSink(webhooksApi.webhooks); // models that declare webhooks.events emit their changes
    const built = buildApi(
      { sql, events, maxPageOffset: config.api.maxPageOffset },
      withProductApis(definition, { webhooks: webhooksApi.webhooks, tokens }),
      pipeline.routeStage,
    );
    graphql?.build(built.models, built.routeMap.resources); // the routes' roles reach the resolvers
    return built;
  };
  if (deps.api) api = build(deps.api);

  // behind proxies, the client's ip is the entry the farthest trusted one appended to
  // X-Forwarded-For: the ones left of it are whatever the client wrote
  const app = new Koa({ proxy: config.trustProxy, maxIpsCount: config.proxyHops });
  app.silent = true; // errors are logged by the error middleware, once
  for (const middleware of pipeline.slots()) app.use(middleware);
  const server = createServer(app.callback());
  server.keepAliveTimeout = 5000;
  server.on('clientError', answerClientError); // what the HTTP parser refuses is problem+json too
  server.on('checkExpectation', answerUnmetExpectation); // and an Expect other than 100-continue
  lifecycle.watch(server);

  // by phase of the boot order (api/lifecycle.ts BOOT_ORDER); a phase stops after those that follow it
  const ownModules = withModules(
    {
      stores: [
        sharedStore,
        ...guards.filter((module): module is Module => !!module),
        { name: 'database', stop: () => sql.end({ timeout: 5 }) },
        ...(probeSql ? [{ name: 'health-probe', stop: () => probeSql.end({ timeout: 1 }) }] : []),
        { name: 'endpoint-stores', stop: () => endpointStores.close() }, // stopped before the pool they may share
      ],
      queue: [],
      webhooks: [webhooksApi.module], // stopped before the pool: its endpoint cache stops listening
      routes: [
        ...(graphql ? [graphql.module] : []),
        ...(tokenCache ? [{ name: 'token-cache', stop: () => tokenCache.close() }] : []), // the same for the token cache
        accountsWeb.module,
      ],
    },
    modules,
  );

  return {
    app,
    server,
    lifecycle,
    sql,
    endpoints: endpointStores.endpoints,
    get api() {
      return api;
    },
    get graphql() {
      return graphql?.service;
    },
    metrics,
    accounts: accountsWeb.accounts,
    tokenCache,
    addMiddleware: (middleware) => pipeline.use('custom', middleware),
    plug: (slot, middleware) => pipeline.use(slot, middleware),
    plugRoute: (slot, factory) => pipeline.useRoute(slot, factory),
    async start(port = config.port) {
      api ??= build(await discoverApi());
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, config.host, () => {
          server.off('error', reject);
          resolve();
        });
      });
      const address = server.address() as AddressInfo;
      log.info(
        { port: address.port, env: config.env, routes: api.mounted.length, models: api.models.all().length },
        'web process listening',
      );
      await lifecycle.boot(ownModules);
      log.info('web process ready');
      return address;
    },
    shutdown: (signal = 'shutdown') => lifecycle.shutdown(server, signal),
  };
}

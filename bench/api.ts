/**
 * `npm run bench:api [-- --seconds 10 --connections 10 --runs 3 --warmup 3 --deliveries 2000 --endpoints 10 --workers 1 --profile 0]`
 * what the web process's stack costs on a read, against handlers that do only what any API
 * must, in one process and one run.
 *
 * - REST: `GET /api/v1/deliveries?per_page=25` through the whole web process (production
 *   config, every middleware: request id, metrics, errors, timeout, secure headers, compression,
 *   ETag, CORS, body parsers, bearer token, rate limit, role guard, HAL) against two bare Koa
 *   handlers on the same pool, with no middleware:
 *   - "our listing": runs the same core listing (`listDeliveries`) and answers the same JSON body
 *     (what the middleware and the token check cost);
 *   - "minimal": what a hand-written handler does and no more: looks the bearer token up by its
 *     SHA-256 digest in `app_api_tokens`, selects the 25 newest deliveries
 *     (`order by created_at desc, id desc limit 25`) beside a `count(*)`, and answers them as
 *     plain JSON (what the whole stack costs, the listing's SQL included).
 * - GraphQL: one query of the same 25 deliveries, POSTed to `graphql.path` through the whole
 *   web process, against two bare `node:http` servers that run graphql-js's `graphql()` (parse,
 *   validate, execute) of the same query:
 *   - "our schema": the service's executable schema (its resolvers and listing) with the same
 *     principal, no token lookup;
 *   - "minimal": the same schema with `webhookDeliveries` resolved by the minimal handler's two
 *     statements, after the same token lookup by digest.
 *
 * The database holds `--deliveries` deliveries to `--endpoints` endpoints (bench/load-history.ts,
 * over 30 days); the listing counts them (up to `api.exactTotal`) on every full page, so the more there are, the more the
 * SQL weighs against the middleware. Every answer is compared before measuring (same records).
 * autocannon drives each server in turn from `--workers` worker threads (0: on the servers' own
 * thread): a warm-up of `--warmup` seconds each (0: none), then `--runs` rounds, each measuring
 * the six targets for `--seconds` with `--connections` connections (bare and full alternate which
 * goes first). The global rate limit is raised above what the run can reach, so it counts every
 * request but refuses none; a run with any error or non-2xx answer fails.
 *
 * stdout: one line, medians of the runs: requests per second, latency p50/p99, the CPU time of
 * the servers' thread per request (autocannon runs on its own thread) and the PostgreSQL CPU per
 * request (embedded server); the ratios full / bare;
 * stderr: the same per run, with the load average.
 *
 * `--profile 1` starts the embedded server with pg_stat_statements and prints, after the runs,
 * each target's statements (time per request, planning included) from one extra run of each
 * (bench/statement-profile.ts); throughput figures are best taken without it.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { addResolversToSchema } from '@graphql-tools/schema';
import autocannon from 'autocannon';
import { graphql as runGraphql, type GraphQLSchema } from 'graphql';
import Koa from 'koa';
import { createContext } from '../api/graphql/context.ts';
import { createWebServer } from '../api/server.ts';
import { pagingLinks } from '../api/webhooks-api/links.ts';
import { publishDelivery } from '../api/webhooks-api/present.ts';
import { PATHS } from '../api/webhooks-api/routes.ts';
import type { Sql } from '../shared/db/connect.ts';
import { createLogger } from '../shared/log/logger.ts';
import { resolveConfig } from '../shared/config/index.ts';
import { startTelemetry } from '../shared/telemetry/start.ts';
import { principalOfToken } from '../shared/tokens/principal.ts';
import { createToken } from '../shared/tokens/tokens.ts';
import { listDeliveries } from '../shared/webhooks/deliveries/index.ts';
import { inCurrentSeries } from '../shared/webhooks/deliveries/record.ts';
import { OPERATOR } from '../shared/access/actor.ts';
import { benchDatabase, median, note, numberArgs, processTreeCpuSeconds } from './common.ts';
import { loadHistory } from './load-history.ts';
import { openStatementProfile, PROFILE_SETTINGS, profileLines, type StatementProfile } from './statement-profile.ts';

const args = numberArgs({
  seconds: 10,
  connections: 10,
  runs: 3,
  warmup: 3,
  deliveries: 2000,
  endpoints: 10,
  workers: 1,
  profile: 0,
});
const PER_PAGE = 25;

/** The delivery fields both the GraphQL query and the REST answer carry. */
const DELIVERY_FIELDS = [
  'externalId',
  'status',
  'endpointId',
  'eventId',
  'type',
  'owner',
  'queue',
  'attemptCount',
  'nextAttemptAt',
  'waitingSince',
  'lastStatus',
  'lastError',
  'queuedAgainAt',
  'queuedAgainBy',
  'attemptsBefore',
  'createdAt',
  'updatedAt',
  'completedAt',
];
const QUERY = `query Deliveries { webhookDeliveries(perPage: ${PER_PAGE}) { total nodes { ${DELIVERY_FIELDS.join(' ')} } } }`;

interface Target {
  name: string;
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  /** CPU milliseconds (user + system) of the servers' thread (both servers run on it) per request. */
  serverMs: number;
  /** CPU milliseconds of the PostgreSQL server per request, when embedded. */
  postgresMs: number | undefined;
}

/** One autocannon run of `seconds` against `target`; refuses a run with errors or non-2xx answers. */
async function load(target: Target, seconds: number, postgresPid?: number): Promise<Figures> {
  const serverBefore = process.threadCpuUsage();
  const postgresBefore = postgresPid === undefined ? null : processTreeCpuSeconds(postgresPid);
  const result = await autocannon({
    url: target.url,
    method: target.method,
    headers: target.headers,
    ...(target.body === undefined ? {} : { body: target.body }),
    connections: args.connections,
    duration: seconds,
    ...(args.workers > 0 ? { workers: args.workers } : {}),
  });
  if (result.errors > 0 || result.non2xx > 0) {
    throw new Error(
      `${target.name}: ${result.errors} errors, ${result.non2xx} answers other than 2xx (${JSON.stringify(result.statusCodeStats)})`,
    );
  }
  const server = process.threadCpuUsage(serverBefore);
  const postgresAfter = postgresPid === undefined ? null : processTreeCpuSeconds(postgresPid);
  const requests = result.requests.total;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    serverMs: (server.user + server.system) / 1000 / requests,
    postgresMs:
      postgresBefore === null || postgresAfter === null
        ? undefined
        : (1000 * (postgresAfter - postgresBefore)) / requests,
  };
}

/** What one request cost: the servers' thread, and PostgreSQL when embedded. */
const cost = (f: Figures) =>
  `${f.serverMs.toFixed(2)} ms server thread CPU${f.postgresMs === undefined ? '' : `, ${f.postgresMs.toFixed(2)} ms PostgreSQL CPU`} a request`;

const listen = async (server: Server): Promise<number> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};

const closing = (server: Server) => () =>
  new Promise((resolve) => {
    server.closeAllConnections();
    server.close(resolve);
  });

/** A request's body, whole. */
const bodyOf = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

/**
 * What the minimal handlers do and no more, as one would write them by hand: the bearer token
 * looked up by its SHA-256 digest (usable: not revoked, not expired), the 25 newest deliveries
 * and their count, each one statement, the two side by side.
 */
function minimalQueries(sql: Sql) {
  return {
    async tokenRole(authorization: string | undefined): Promise<string | undefined> {
      const text = authorization?.startsWith('Bearer ') ? authorization.slice(7) : undefined;
      if (text === undefined) return undefined;
      const digest = createHash('sha256').update(text, 'utf8').digest('hex');
      const [row] = await sql<{ role: string }[]>`
        select role from app_api_tokens where digest = ${digest} and revoked_at is null and (expires_at is null or expires_at > now())`;
      return row?.role;
    },
    async newest(limit: number) {
      const [rows, [{ total }]] = await Promise.all([
        sql<Array<Record<string, unknown>>>`
          select id, status, endpoint_id, event_id, event_type, owner, queue, attempts, next_attempt_at,
                 parked_at, last_status, last_error, queued_again_at, queued_again_by, attempts_before,
                 created_at, updated_at, completed_at
            from app_webhook_deliveries order by created_at desc, id desc limit ${limit}`,
        sql<{ total: number }[]>`select count(*)::int as total from app_webhook_deliveries`,
      ]);
      // the delivery as the API presents it (shared/webhooks/public-shapes.ts), written out
      const records = rows.map((row) => ({
        externalId: row.id,
        status: row.status,
        endpointId: row.endpoint_id,
        eventId: row.event_id,
        type: row.event_type,
        owner: row.owner,
        queue: row.queue,
        attemptCount: row.attempts,
        nextAttemptAt: row.next_attempt_at,
        waitingSince: row.status === 'pending' ? row.parked_at : null,
        lastStatus: inCurrentSeries(row as never) ? row.last_status : null,
        lastError: inCurrentSeries(row as never) ? row.last_error : null,
        queuedAgainAt: row.queued_again_at,
        queuedAgainBy: row.queued_again_by,
        attemptsBefore: row.attempts_before ?? 0,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
        completedAt: row.completed_at,
      }));
      return { records, total };
    },
  };
}

const db = await benchDatabase(
  { rateLimit: { max: 1_000_000_000 } },
  { settings: args.profile ? PROFILE_SETTINGS : [] },
);
const closers: Array<() => Promise<unknown>> = [];
try {
  const profile: StatementProfile | undefined = args.profile ? await openStatementProfile(db.adminUrl) : undefined;
  if (profile) closers.push(() => profile.close());
  note(`loading ${args.deliveries} deliveries to ${args.endpoints} endpoints`);
  await loadHistory(db, { deliveries: args.deliveries, endpoints: args.endpoints, days: 30 });
  await db.sql`analyze`;
  const admin = await createToken({ sql: db.sql, log: db.log }, { name: 'bench admin', role: 'admin' });
  const principal = principalOfToken(admin);

  // the web process as api/run.ts builds it (production config), its modules booted; traced when
  // OTEL_EXPORTER_OTLP_ENDPOINT is set (the OTEL_* variables alone: measuring what tracing costs)
  const log = createLogger(db.config, { name: 'web', stderr: true });
  const otel = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('OTEL_')));
  const telemetry = await startTelemetry(
    { config: resolveConfig({ env: { NODE_ENV: 'production', ...otel } }).config, log },
    'web',
  );
  closers.push(() => telemetry.shutdown());
  const web = createWebServer({ config: db.config, log, tracing: telemetry.enabled });
  const { port: webPort } = await web.start(0);
  closers.push(() => web.shutdown('bench'));
  const deps = { config: db.config, sql: web.sql, log };
  const models = web.api!.models;
  const schema = web.graphql!.schema as GraphQLSchema;
  const minimal = minimalQueries(web.sql);

  // the bare REST handler over our listing: the core listing on the web process's pool, the same JSON body
  const bareRest = new Koa();
  bareRest.use(async (ctx) => {
    const perPage = Number(ctx.query.per_page ?? 25);
    const page = 1;
    const { records, total, totalEstimated } = await listDeliveries(deps, OPERATOR, { page, perPage });
    ctx.type = 'application/hal+json';
    ctx.body = JSON.stringify({
      _links: pagingLinks(PATHS.deliveries, {}, { page, perPage, total }, []),
      _embedded: { deliveries: records.map((delivery) => publishDelivery(principal, delivery)) },
      count: records.length,
      page,
      perPage,
      total,
      totalEstimated,
    });
  });
  const bareRestServer = createServer(bareRest.callback());
  const bareRestPort = await listen(bareRestServer);
  closers.push(closing(bareRestServer));

  // the minimal REST handler: token by digest, the newest deliveries and their count, plain JSON
  const minimalRest = new Koa();
  minimalRest.use(async (ctx) => {
    if ((await minimal.tokenRole(ctx.get('authorization') || undefined)) === undefined) {
      ctx.status = 401;
      return;
    }
    const { records, total } = await minimal.newest(Number(ctx.query.per_page ?? 25));
    ctx.type = 'application/json';
    ctx.body = JSON.stringify({ deliveries: records, total });
  });
  const minimalRestServer = createServer(minimalRest.callback());
  const minimalRestPort = await listen(minimalRestServer);
  closers.push(closing(minimalRestServer));

  // the bare GraphQL server: graphql() of the same schema, the same context as the service makes
  const bareGraphqlServer = createServer(async (req, res) => {
    const { query, variables } = JSON.parse(await bodyOf(req)) as {
      query: string;
      variables?: Record<string, unknown>;
    };
    const result = await runGraphql({
      schema,
      source: query,
      variableValues: variables,
      contextValue: createContext({ models, log }, { principal }),
    });
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(result));
  });
  const bareGraphqlPort = await listen(bareGraphqlServer);
  closers.push(closing(bareGraphqlServer));

  // the minimal GraphQL server: the token by digest, then graphql() of the same schema with
  // webhookDeliveries resolved by the minimal statements (the other fields as the schema has them)
  const minimalSchema = addResolversToSchema({
    schema,
    updateResolversInPlace: false,
    resolvers: {
      Query: {
        async webhookDeliveries(_root: unknown, given: { perPage?: number }) {
          const perPage = given.perPage ?? 25;
          const { records, total } = await minimal.newest(perPage);
          return { nodes: records, page: 1, perPage, total, pages: Math.ceil(total / perPage), totalEstimated: false };
        },
      },
    },
  });
  const minimalGraphqlServer = createServer(async (req, res) => {
    const body = await bodyOf(req);
    if ((await minimal.tokenRole(req.headers.authorization)) === undefined) {
      res.writeHead(401).end();
      return;
    }
    const { query, variables } = JSON.parse(body) as { query: string; variables?: Record<string, unknown> };
    const result = await runGraphql({
      schema: minimalSchema,
      source: query,
      variableValues: variables,
      contextValue: {},
    });
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(result));
  });
  const minimalGraphqlPort = await listen(minimalGraphqlServer);
  closers.push(closing(minimalGraphqlServer));

  const restHeaders = { accept: 'application/hal+json', authorization: `Bearer ${admin.token}` };
  const graphqlHeaders = {
    accept: 'application/json',
    'content-type': 'application/json',
    authorization: `Bearer ${admin.token}`,
  };
  const graphqlBody = JSON.stringify({ query: QUERY });
  const graphqlUrl = `http://127.0.0.1:${webPort}${db.config.graphql ? db.config.graphql.path : '/_app/gql'}`;
  const targets = {
    restFull: {
      name: 'REST full stack',
      url: `http://127.0.0.1:${webPort}${PATHS.deliveries}?per_page=${PER_PAGE}`,
      method: 'GET',
      headers: restHeaders,
    },
    restBare: {
      name: 'REST bare Koa, our listing',
      url: `http://127.0.0.1:${bareRestPort}/deliveries?per_page=${PER_PAGE}`,
      method: 'GET',
      headers: restHeaders,
    },
    restMinimal: {
      name: 'REST minimal Koa',
      url: `http://127.0.0.1:${minimalRestPort}/deliveries?per_page=${PER_PAGE}`,
      method: 'GET',
      headers: restHeaders,
    },
    graphqlFull: {
      name: 'GraphQL full stack',
      url: graphqlUrl,
      method: 'POST',
      headers: graphqlHeaders,
      body: graphqlBody,
    },
    graphqlBare: {
      name: 'GraphQL bare graphql(), our schema',
      url: `http://127.0.0.1:${bareGraphqlPort}/`,
      method: 'POST',
      headers: graphqlHeaders,
      body: graphqlBody,
    },
    graphqlMinimal: {
      name: 'GraphQL minimal graphql()',
      url: `http://127.0.0.1:${minimalGraphqlPort}/`,
      method: 'POST',
      headers: graphqlHeaders,
      body: graphqlBody,
    },
  } satisfies Record<string, Target>;
  type Name = keyof typeof targets;

  // the same records from every side, before any measuring
  const fetched = async (target: Target) => {
    const response = await fetch(target.url, { method: target.method, headers: target.headers, body: target.body });
    assert.equal(response.status, 200, `${target.name} answered ${response.status}: ${await response.clone().text()}`);
    return response.json() as Promise<Record<string, unknown>>;
  };
  const restFull = await fetched(targets.restFull);
  const fullDeliveries = (restFull._embedded as { deliveries: Array<Record<string, unknown>> }).deliveries;
  assert.equal(fullDeliveries.length, PER_PAGE);
  assert.deepEqual(
    await fetched(targets.restBare),
    restFull,
    'the bare REST handler answers another body than the web process',
  );
  const withoutLinks = fullDeliveries.map(({ _links, ...fields }) => fields);
  assert.deepEqual(
    await fetched(targets.restMinimal),
    { deliveries: withoutLinks, total: restFull.total },
    'the minimal REST handler answers other records than the web process',
  );
  const graphqlFull = await fetched(targets.graphqlFull);
  assert.equal(graphqlFull.errors, undefined, JSON.stringify(graphqlFull.errors));
  assert.deepEqual(
    await fetched(targets.graphqlBare),
    graphqlFull,
    'the bare GraphQL server answers other data than the web process',
  );
  assert.deepEqual(
    await fetched(targets.graphqlMinimal),
    graphqlFull,
    'the minimal GraphQL server answers other data than the web process',
  );
  const restIds = withoutLinks.map((delivery) => delivery.externalId);
  const graphqlIds = (
    graphqlFull.data as { webhookDeliveries: { nodes: Array<{ externalId: string }> } }
  ).webhookDeliveries.nodes.map((node) => node.externalId);
  assert.deepEqual(graphqlIds, restIds, 'REST and GraphQL list other deliveries');

  // `--warmup 0`: none (a run that only checks the benchmark still runs)
  if (args.warmup > 0) {
    note(
      `warming up (${args.warmup} s each); load average ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
    );
    for (const target of Object.values(targets)) await load(target, args.warmup);
  }

  const figures: Record<Name, Figures[]> = {
    restFull: [],
    restBare: [],
    restMinimal: [],
    graphqlFull: [],
    graphqlBare: [],
    graphqlMinimal: [],
  };
  const RATIOS: Array<[label: string, full: Name, bare: Name]> = [
    ['REST full / our listing', 'restFull', 'restBare'],
    ['REST full / minimal', 'restFull', 'restMinimal'],
    ['GraphQL full / our schema', 'graphqlFull', 'graphqlBare'],
    ['GraphQL full / minimal', 'graphqlFull', 'graphqlMinimal'],
  ];
  for (let run = 0; run < args.runs; run++) {
    const order: Name[] =
      run % 2 === 0
        ? ['restBare', 'restMinimal', 'restFull', 'graphqlBare', 'graphqlMinimal', 'graphqlFull']
        : ['restFull', 'restMinimal', 'restBare', 'graphqlFull', 'graphqlMinimal', 'graphqlBare'];
    for (const name of order) figures[name].push(await load(targets[name], args.seconds, db.serverPid));
    const one = (name: Name) => {
      const f = figures[name][run];
      return `${f.rps.toFixed(0)} req/s (p99 ${f.p99.toFixed(1)} ms; ${cost(f)})`;
    };
    note(
      `run ${run + 1}: ${(Object.keys(targets) as Name[]).map((name) => `${targets[name].name} ${one(name)}`).join('; ')}; ` +
        `ratios ${RATIOS.map(([label, full, bare]) => `${label} ${(figures[full][run].rps / figures[bare][run].rps).toFixed(2)}`).join(', ')}; ` +
        `load average ${loadavg()
          .map((x) => x.toFixed(2))
          .join(' ')}`,
    );
  }

  const summary = (name: Name): Figures => {
    const runs = figures[name];
    const of = (key: 'rps' | 'p50' | 'p99' | 'serverMs') => median(runs.map((f) => f[key]));
    const postgres = runs.map((f) => f.postgresMs).filter((ms) => ms !== undefined);
    return {
      rps: of('rps'),
      p50: of('p50'),
      p99: of('p99'),
      serverMs: of('serverMs'),
      postgresMs: postgres.length > 0 ? median(postgres) : undefined,
    };
  };
  const side = (label: string, f: Figures) =>
    `${label} ${f.rps.toFixed(0)} req/s (p50 ${f.p50.toFixed(1)} ms, p99 ${f.p99.toFixed(1)} ms; ${cost(f)})`;
  const ratio = (full: Name, bare: Name) => (summary(full).rps / summary(bare).rps).toFixed(2);
  process.stdout.write(
    `bench:api: GET ${PATHS.deliveries}?per_page=${PER_PAGE}: ${side('full stack', summary('restFull'))}, ` +
      `${side('bare Koa over our listing', summary('restBare'))}, ${side('minimal Koa', summary('restMinimal'))}, ` +
      `ratio ${ratio('restFull', 'restBare')} (our listing), ${ratio('restFull', 'restMinimal')} (minimal); ` +
      `GraphQL webhookDeliveries(perPage: ${PER_PAGE}): ${side('full stack', summary('graphqlFull'))}, ` +
      `${side('bare graphql() over our schema', summary('graphqlBare'))}, ${side('minimal graphql()', summary('graphqlMinimal'))}, ` +
      `ratio ${ratio('graphqlFull', 'graphqlBare')} (our schema), ${ratio('graphqlFull', 'graphqlMinimal')} (minimal) ` +
      `(medians of ${args.runs} runs of ${args.seconds} s, ${args.connections} connections; ${args.deliveries} deliveries; ${db.server})\n`,
  );

  if (profile) {
    for (const name of Object.keys(targets) as Name[]) {
      await profile.reset();
      const requests = (await autocannon({ ...targets[name], connections: args.connections, duration: args.seconds }))
        .requests.total;
      note(
        [
          `${targets[name].name}: PostgreSQL statements (pg_stat_statements, ${requests} requests):`,
          ...profileLines(await profile.top(requests, 8, 160), 'request'),
        ].join('\n'),
      );
    }
  }
} finally {
  for (const close of closers.reverse()) await close();
  await db.close();
}

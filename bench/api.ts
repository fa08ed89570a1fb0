/**
 * `npm run bench:api [-- --seconds 10 --connections 10 --runs 3 --warmup 3 --deliveries 2000 --endpoints 10 --workers 1]`
 * (issue 18, item 3): what the web process's middleware stack costs on a read, in one process
 * and one run.
 *
 * - REST: `GET /api/v1/deliveries?per_page=25` through the whole web process (production
 *   config, every middleware: request id, metrics, errors, timeout, secure headers, compression,
 *   ETag, CORS, body parsers, bearer token looked up in the database, rate limit, role guard, HAL)
 *   against a bare Koa handler that runs the same core listing (`listDeliveries`) on the same
 *   pool and answers the same JSON body, with no middleware.
 * - GraphQL: one query of the same 25 deliveries, POSTed to `graphql.path` through the whole
 *   web process, against a bare `node:http` server that runs graphql-js's `graphql()` (parse,
 *   validate, execute) on the same executable schema with the same principal.
 *
 * The database holds `--deliveries` deliveries to `--endpoints` endpoints (bench/load-history.ts,
 * over 30 days); the listing counts them (up to `api.exactTotal`) on every full page, so the more there are, the more the
 * SQL weighs against the middleware. Both answers are compared before measuring (same data).
 * autocannon drives each server in turn from `--workers` worker threads (0: on the servers' own
 * thread): a warm-up of `--warmup` seconds each, then `--runs` rounds, each measuring the four
 * targets for `--seconds` with `--connections` connections (bare and full alternate which goes
 * first). The global rate limit is raised above what the run can reach, so it counts every
 * request but refuses none; a run with any error or non-2xx answer fails.
 *
 * stdout: one line, medians of the runs: requests per second, latency p50/p99, the CPU time of
 * the servers' thread per request (autocannon runs on its own thread) and the PostgreSQL CPU per
 * request (embedded server);
 * stderr: the same per run, with the load average.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import autocannon from 'autocannon';
import { graphql as runGraphql, type GraphQLSchema } from 'graphql';
import Koa from 'koa';
import { createContext } from '../api/graphql/context.ts';
import { createWebServer } from '../api/server.ts';
import { pagingLinks } from '../api/webhooks-api/links.ts';
import { publishDelivery } from '../api/webhooks-api/present.ts';
import { PATHS } from '../api/webhooks-api/routes.ts';
import { createLogger } from '../shared/log/logger.ts';
import { principalOfToken } from '../shared/tokens/principal.ts';
import { createToken } from '../shared/tokens/tokens.ts';
import { listDeliveries } from '../shared/webhooks/deliveries/index.ts';
import { ALL_TENANTS } from '../shared/webhooks/tenant-scope.ts';
import { benchDatabase, median, note, numberArgs, processTreeCpuSeconds } from './common.ts';
import { loadHistory } from './load-history.ts';

const args = numberArgs({ seconds: 10, connections: 10, runs: 3, warmup: 3, deliveries: 2000, endpoints: 10, workers: 1 });
const PER_PAGE = 25;

/** The delivery fields both the GraphQL query and the REST answer carry. */
const DELIVERY_FIELDS = ['externalId', 'status', 'endpointId', 'eventId', 'type', 'owner', 'queue', 'attemptCount', 'nextAttemptAt', 'lastStatus', 'lastError', 'createdAt', 'updatedAt', 'completedAt'];
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
    throw new Error(`${target.name}: ${result.errors} errors, ${result.non2xx} answers other than 2xx (${JSON.stringify(result.statusCodeStats)})`);
  }
  const server = process.threadCpuUsage(serverBefore);
  const postgresAfter = postgresPid === undefined ? null : processTreeCpuSeconds(postgresPid);
  const requests = result.requests.total;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    serverMs: (server.user + server.system) / 1000 / requests,
    postgresMs: postgresBefore === null || postgresAfter === null ? undefined : (1000 * (postgresAfter - postgresBefore)) / requests,
  };
}

/** What one request cost: the servers' thread, and PostgreSQL when embedded. */
const cost = (f: Figures) => `${f.serverMs.toFixed(2)} ms server thread CPU${f.postgresMs === undefined ? '' : `, ${f.postgresMs.toFixed(2)} ms PostgreSQL CPU`} a request`;

const listen = async (server: Server): Promise<number> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};

const db = await benchDatabase({ rateLimit: { max: 1_000_000_000 } });
const closers: Array<() => Promise<unknown>> = [];
try {
  note(`loading ${args.deliveries} deliveries to ${args.endpoints} endpoints`);
  await loadHistory(db, { deliveries: args.deliveries, endpoints: args.endpoints, days: 30 });
  const admin = await createToken({ sql: db.sql, log: db.log }, { name: 'bench admin', role: 'admin' });
  const principal = principalOfToken(admin);

  // the web process as api/run.ts builds it (production config), its modules booted
  const log = createLogger(db.config, { name: 'web', stderr: true });
  const web = createWebServer({ config: db.config, log });
  const { port: webPort } = await web.start(0);
  closers.push(() => web.shutdown('bench'));
  const deps = { config: db.config, sql: web.sql, log };
  const models = web.api!.models;
  const schema = web.graphql!.schema as GraphQLSchema;

  // the bare REST handler: the core listing on the web process's pool, the same JSON body
  const bareRest = new Koa();
  bareRest.use(async (ctx) => {
    const perPage = Number(ctx.query.per_page ?? 25);
    const page = 1;
    const { records, total, totalEstimated } = await listDeliveries(deps, ALL_TENANTS, { page, perPage });
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
  closers.push(() => new Promise((resolve) => { bareRestServer.closeAllConnections(); bareRestServer.close(resolve); }));

  // the bare GraphQL server: graphql() of the same schema, the same context as the service makes
  const bareGraphqlServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const { query, variables } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { query: string; variables?: Record<string, unknown> };
      const result = await runGraphql({ schema, source: query, variableValues: variables, contextValue: createContext({ models, log }, { principal }) });
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(result));
    });
  });
  const bareGraphqlPort = await listen(bareGraphqlServer);
  closers.push(() => new Promise((resolve) => { bareGraphqlServer.closeAllConnections(); bareGraphqlServer.close(resolve); }));

  const restHeaders = { accept: 'application/hal+json', authorization: `Bearer ${admin.token}` };
  const graphqlHeaders = { accept: 'application/json', 'content-type': 'application/json', authorization: `Bearer ${admin.token}` };
  const graphqlBody = JSON.stringify({ query: QUERY });
  const targets = {
    restFull: { name: 'REST full stack', url: `http://127.0.0.1:${webPort}${PATHS.deliveries}?per_page=${PER_PAGE}`, method: 'GET', headers: restHeaders },
    restBare: { name: 'REST bare Koa', url: `http://127.0.0.1:${bareRestPort}/deliveries?per_page=${PER_PAGE}`, method: 'GET', headers: restHeaders },
    graphqlFull: { name: 'GraphQL full stack', url: `http://127.0.0.1:${webPort}${db.config.graphql ? db.config.graphql.path : '/_app/gql'}`, method: 'POST', headers: graphqlHeaders, body: graphqlBody },
    graphqlBare: { name: 'GraphQL bare graphql()', url: `http://127.0.0.1:${bareGraphqlPort}/`, method: 'POST', headers: graphqlHeaders, body: graphqlBody },
  } satisfies Record<string, Target>;

  // the same data from both sides, before any measuring
  const fetched = async (target: Target) => {
    const response = await fetch(target.url, { method: target.method, headers: target.headers, body: target.body });
    assert.equal(response.status, 200, `${target.name} answered ${response.status}: ${await response.clone().text()}`);
    return response.json() as Promise<Record<string, unknown>>;
  };
  const restFull = await fetched(targets.restFull);
  assert.equal((restFull._embedded as { deliveries: unknown[] }).deliveries.length, PER_PAGE);
  assert.deepEqual(await fetched(targets.restBare), restFull, 'the bare REST handler answers another body than the web process');
  const graphqlFull = await fetched(targets.graphqlFull);
  assert.equal(graphqlFull.errors, undefined, JSON.stringify(graphqlFull.errors));
  assert.deepEqual(await fetched(targets.graphqlBare), graphqlFull, 'the bare GraphQL server answers other data than the web process');
  const restIds = (restFull._embedded as { deliveries: Array<{ externalId: string }> }).deliveries.map((delivery) => delivery.externalId);
  const graphqlIds = (graphqlFull.data as { webhookDeliveries: { nodes: Array<{ externalId: string }> } }).webhookDeliveries.nodes.map((node) => node.externalId);
  assert.deepEqual(graphqlIds, restIds, 'REST and GraphQL list other deliveries');

  note(`warming up (${args.warmup} s each); load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  for (const target of Object.values(targets)) await load(target, args.warmup);

  const figures: Record<keyof typeof targets, Figures[]> = { restFull: [], restBare: [], graphqlFull: [], graphqlBare: [] };
  for (let run = 0; run < args.runs; run++) {
    const order: Array<keyof typeof targets> = run % 2 === 0
      ? ['restBare', 'restFull', 'graphqlBare', 'graphqlFull']
      : ['restFull', 'restBare', 'graphqlFull', 'graphqlBare'];
    for (const name of order) figures[name].push(await load(targets[name], args.seconds, db.serverPid));
    const one = (name: keyof typeof targets) => {
      const f = figures[name][run];
      return `${f.rps.toFixed(0)} req/s (p99 ${f.p99.toFixed(1)} ms; ${cost(f)})`;
    };
    const ratio = (full: keyof typeof targets, bare: keyof typeof targets) => (figures[full][run].rps / figures[bare][run].rps).toFixed(2);
    note(`run ${run + 1}: REST full ${one('restFull')}, bare ${one('restBare')}, ratio ${ratio('restFull', 'restBare')}; `
      + `GraphQL full ${one('graphqlFull')}, bare ${one('graphqlBare')}, ratio ${ratio('graphqlFull', 'graphqlBare')}; `
      + `load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  }

  const summary = (name: keyof typeof targets): Figures => {
    const runs = figures[name];
    const of = (key: 'rps' | 'p50' | 'p99' | 'serverMs') => median(runs.map((f) => f[key]));
    const postgres = runs.map((f) => f.postgresMs).filter((ms) => ms !== undefined);
    return { rps: of('rps'), p50: of('p50'), p99: of('p99'), serverMs: of('serverMs'), postgresMs: postgres.length > 0 ? median(postgres) : undefined };
  };
  const side = (label: string, f: Figures) => `${label} ${f.rps.toFixed(0)} req/s (p50 ${f.p50.toFixed(1)} ms, p99 ${f.p99.toFixed(1)} ms; ${cost(f)})`;
  const pair = (title: string, full: keyof typeof targets, bare: keyof typeof targets, bareLabel: string) => {
    const [f, b] = [summary(full), summary(bare)];
    return `${title}: ${side('full stack', f)}, ${side(bareLabel, b)}, ratio ${(f.rps / b.rps).toFixed(2)}`;
  };
  process.stdout.write(`bench:api: ${pair(`GET ${PATHS.deliveries}?per_page=${PER_PAGE}`, 'restFull', 'restBare', 'bare Koa')}; `
    + `${pair(`GraphQL webhookDeliveries(perPage: ${PER_PAGE})`, 'graphqlFull', 'graphqlBare', 'bare graphql()')} `
    + `(medians of ${args.runs} runs of ${args.seconds} s, ${args.connections} connections; ${args.deliveries} deliveries; ${db.server})\n`);
} finally {
  for (const close of closers.reverse()) await close();
  await db.close();
}

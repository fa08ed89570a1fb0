/**
 * The worker's small HTTP listener (`worker.metricsPort`; off when unset), the only port a worker
 * opens:
 *
 * - `GET /metrics`: the Prometheus text format behind `metrics.token`, like the web process's
 *   (404 without a token);
 * - `GET /livez`: 200 while the process supervises its job runner (also while it waits for the
 *   database to come back; past `worker.outageLimit` the process exits);
 * - `GET /readyz`: 200 only while a job runner runs and its heartbeat is fresh (no older than three
 *   `worker.heartbeat`), else 503 with the reason: whether the worker is really working.
 *
 * Health paths need no token. Everything else is 404. Refusals are RFC 9457 problems with their
 * `APP_*` code, as the web process answers them.
 */
import { createServer, STATUS_CODES, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { scrapeAllowed } from '../shared/metrics/scrape-token.ts';
import type { WorkerHealth } from './runner.ts';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/** A refusal as `application/problem+json` (`{type, title, status, detail, code?, data?}`). */
function problem(
  res: ServerResponse,
  status: number,
  code: string | undefined,
  detail: string,
  headers: Record<string, string> = {},
  data?: unknown,
): void {
  const title = STATUS_CODES[status] ?? 'Error';
  res.writeHead(status, { 'content-type': 'application/problem+json', 'cache-control': 'no-store', ...headers }).end(
    JSON.stringify({
      type: 'about:blank',
      title,
      status,
      detail,
      ...(code === undefined ? {} : { code }),
      ...(data === undefined ? {} : { data }),
    }),
  );
}

/** Listens on `port` (0: any free port) of `host`; answers 404 to everything when `token` is null. */
export async function startMetricsServer(options: {
  registry: Registry;
  token: string | null;
  port: number;
  host: string;
  health?: () => WorkerHealth;
}): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if ((path === '/livez' || path === '/readyz') && options.health) {
      const health = options.health();
      const ok = path === '/livez' || health.ready;
      const reason = health.running
        ? health.ready
          ? undefined
          : 'heartbeat is stale'
        : 'job runner not running: waiting for the database';
      res
        .writeHead(ok ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' })
        .end(JSON.stringify({ status: ok ? 'ok' : 'unavailable', ...(ok || !reason ? {} : { reason }), ...health }));
      return;
    }
    if (path !== '/metrics' || options.token === null) {
      problem(res, 404, 'APP_NOT_FOUND', `no route for ${req.method} ${path} on the worker's listener`);
      return;
    }
    if (!scrapeAllowed(req.headers.authorization, options.token)) {
      const given = (req.headers.authorization ?? '') !== '';
      problem(
        res,
        401,
        given ? 'APP_TOKEN_INVALID' : 'APP_UNAUTHENTICATED',
        given ? 'the bearer token is not metrics.token' : 'metrics: a bearer token (metrics.token) is required',
        { 'www-authenticate': given ? 'Bearer realm="metrics", error="invalid_token"' : 'Bearer realm="metrics"' },
      );
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      problem(
        res,
        405,
        'APP_METHOD_NOT_ALLOWED',
        `${req.method} is not allowed on /metrics; allowed: GET, HEAD`,
        { allow: 'GET, HEAD' },
        { allow: ['GET', 'HEAD'] },
      );
      return;
    }
    options.registry.metrics().then(
      (text) =>
        res
          .writeHead(200, { 'content-type': options.registry.contentType, 'cache-control': 'no-store' })
          .end(req.method === 'HEAD' ? undefined : text),
      // a failure of ours, without a code, as the web process answers one
      () => problem(res, 500, undefined, 'the metrics could not be collected'),
    );
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

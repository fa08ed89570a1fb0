/**
 * The worker's metrics listener (`worker.metricsPort`; off when unset): `GET /metrics` in the
 * Prometheus text format behind `metrics.token`, like the web process's. The worker listens on
 * no other port; this one serves nothing else (404).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { scrapeAllowed } from '../shared/metrics/scrape-token.ts';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/** Listens on `port` (0: any free port) of `host`; answers 404 to everything when `token` is null. */
export async function startMetricsServer(options: { registry: Registry; token: string | null; port: number; host: string }): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || options.token === null) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    if (!scrapeAllowed(req.headers.authorization, options.token)) {
      res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer realm="metrics"' }).end('metrics: a valid bearer token (metrics.token) is required\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    options.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': options.registry.contentType, 'cache-control': 'no-store' }).end(req.method === 'HEAD' ? undefined : text),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics could not be collected\n'),
    );
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

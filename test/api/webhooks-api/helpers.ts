/**
 * The webhook API over real HTTP for these tests: a web process on port 0 serving the webhook
 * routes and controllers against this file's own database (fast worker settings of
 * test/worker/helpers.ts, loopback receivers allowed), tokens made through the core, a local
 * receiver on 127.0.0.1, and small request helpers. Every log line the web process writes is
 * kept, to check that no secret or token reaches them.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after } from 'node:test';
import { createWebServer, type WebServer } from '../../../api/server.ts';
import { connect } from '../../../shared/db/connect.ts';
import { createLogger } from '../../../shared/log/logger.ts';
import { createToken } from '../../../shared/tokens/tokens.ts';
import type { Role } from '../../../shared/tokens/roles.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { harness, type Harness } from '../../worker/helpers.ts';
import { startWorker } from '../../../worker/runner.ts';
import { tasks } from '../../../worker/tasks/index.ts';

export interface ApiHarness {
  /** `http://127.0.0.1:<port>` */
  base: string;
  /** `<base>/api/v1` */
  api: string;
  web: WebServer;
  db: TestDatabase;
  /** Config, pool and logger of this file, for the worker helpers. */
  h: Harness;
  /** Every log line of the web process, as written. */
  logs: string[];
  /** A new token of `role` (bound to `owner` unless admin); its text. */
  token(role: Role, owner?: string): Promise<string>;
}

const servers: Array<{ close(): Promise<unknown> }> = [];

/**
 * Stops what this file started (worker, receivers, web process), last started first. Call it
 * in the file's `describe` with `after(closeAll)`: the database helper drops the database in a
 * file-level hook that runs before any later file-level hook, so stopping there would be late.
 */
export async function closeAll(): Promise<void> {
  for (const server of servers.splice(0).reverse()) await server.close();
}
after(closeAll);

/** Starts the web process of this file (stopped when its tests end). `flags` are laid over the fast test config. */
export async function startApi(flags: Record<string, unknown> = {}): Promise<ApiHarness> {
  const db = await createTestDatabase();
  const h = harness(db, flags);
  const logs: string[] = [];
  const log = createLogger(
    { ...h.config, logLevel: 'debug' },
    {
      name: 'test-web',
      destination: new Writable({
        write(chunk, _encoding, done) {
          logs.push(String(chunk));
          done();
        },
      }),
    },
  );
  const web = createWebServer({
    config: h.config,
    log,
    sql: connect(h.config, log, { max: 4 }),
    stores: [],
    api: {}, // the webhook API is mounted by the server itself
  });
  servers.push({ close: () => web.shutdown('test') });
  const { port } = await web.start(0);
  const base = `http://127.0.0.1:${port}`;
  const tokenDeps = { sql: db.sql, log: db.log };
  return {
    base,
    api: `${base}/api/v1`,
    web,
    db,
    h,
    logs,
    token: async (role, owner) =>
      (
        await createToken(tokenDeps, {
          name: `${role} ${owner ?? ''}`.trim(),
          role,
          owner: role === 'admin' ? undefined : owner,
        })
      ).token,
  };
}

/** Starts the real delivery worker on this file's database (stopped by `closeAll`, before the web process). */
export async function startDeliveryWorker(app: ApiHarness): Promise<void> {
  const quiet = createLogger({ ...app.h.config, logLevel: 'error' }, { name: 'test-worker' }); // dead deliveries are expected here
  const handle = await startWorker({ config: app.h.config, log: quiet }, tasks);
  servers.push({ close: () => handle.stop() });
}

export interface Answer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
}

/** One request with a bearer token (or none) and an optional JSON body; parses the answer. */
export async function call(
  method: string,
  url: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { Accept: 'application/hal+json', ...options.headers };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['Content-Type'] ??= 'application/json';
  const response = await fetch(url, {
    method,
    headers,
    body:
      options.body === undefined
        ? undefined
        : typeof options.body === 'string'
          ? options.body
          : JSON.stringify(options.body),
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body, text };
}

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  requests: Received[];
  /** The status the next requests get (default 200). */
  answer(status: number): void;
  /** Resolves at the next request received. */
  next(): Promise<Received>;
}

/** A receiver on 127.0.0.1 port 0 recording every request (closed when the file's tests end). */
export async function receiver(path = '/hook'): Promise<Receiver> {
  const requests: Received[] = [];
  const waiting: ((request: Received) => void)[] = [];
  let status = 200;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(received);
      for (const resolve of waiting.splice(0)) resolve(received);
      response.writeHead(status, { 'content-type': 'text/plain' });
      response.end(status < 300 ? 'ok' : `failing with ${status}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push({
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    requests,
    answer: (next) => void (status = next),
    next: () => new Promise((resolve) => waiting.push(resolve)),
  };
}

/** Registers an endpoint over HTTP and answers the created resource (with its secret). */
export async function createEndpoint(app: ApiHarness, token: string, body: Record<string, unknown>) {
  const created = await call('POST', `${app.api}/webhooks`, { token, body: { events: ['*'], ...body } });
  if (created.status !== 201) throw new Error(`create failed: ${created.status} ${created.text}`);
  return created.body as {
    externalId: string;
    secret: string;
    owner: string | null;
    _links: Record<string, { href: string; method?: string }>;
  };
}

/**
 * What the console's tests share: a web process and the real delivery worker on this file's
 * database (the fast settings of test/worker/helpers.ts, loopback receivers allowed), users made
 * through the core, receivers on 127.0.0.1 whose answer a test sets, and a cookie-keeping client
 * (test/api/accounts/helpers.ts). `close()` stops them; call it from the file's describe `after`.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '../../../shared/log/logger.ts';
import { startWorker } from '../../../worker/runner.ts';
import { tasks } from '../../../worker/tasks/index.ts';
import { startAccounts } from '../accounts/helpers.ts';
import { FAST, flags as merge, harness } from '../../worker/helpers.ts';

export { Browser, PASSWORD } from '../accounts/helpers.ts';

export interface Received {
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

export async function startConsole(extra: Record<string, unknown> = {}) {
  const settings = merge(FAST, { webhooks: { maxAttempts: 2, backoff: { base: '20ms', factor: 1, max: '50ms', jitter: 0 } } }, extra);
  const app = await startAccounts(settings);
  const closers: (() => Promise<unknown>)[] = []; // the web process is shut down by serveWeb's own hook
  const h = harness(app.db, settings);
  const quiet = createLogger({ ...h.config, logLevel: 'error' }, { name: 'test-worker' });
  const worker = await startWorker({ config: h.config, log: quiet }, tasks);
  closers.push(() => worker.stop());

  async function receiver(): Promise<Receiver> {
    const requests: Received[] = [];
    const waiting: ((request: Received) => void)[] = [];
    let status = 200;
    const server: Server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const received = { path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
        requests.push(received);
        for (const resolve of waiting.splice(0)) resolve(received);
        response.writeHead(status, { 'content-type': 'text/plain' });
        response.end(status < 300 ? 'ok' : `failing with ${status}`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}/hook`,
      requests,
      answer: (next) => void (status = next),
      next: () => new Promise((resolve) => waiting.push(resolve)),
    };
  }

  return {
    ...app,
    receiver,
    /** Stops the worker, the receivers and the web process (last started first). */
    close: async () => {
      for (const close of closers.splice(0).reverse()) await close();
    },
  };
}

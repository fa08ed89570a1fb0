/**
 * Servers in front of a test's PostgreSQL for the tests of the driver's sockets
 * (test/shared/db/driver-*.test.ts): one whose `reset()` ends every client connection with a TCP
 * RST, and one that speaks PostgreSQL's TLS (an SSLRequest answered `S`, then TLS with the test
 * certificate) and passes the plain protocol on. Each answers `close()`, for the test's cleanups,
 * and `refuse(error)` to answer every new connection's startup message with a server's
 * ErrorResponse (`errorResponse`) and close it, as a server that starts up or shuts down does,
 * until `flow()`.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import type { Sql } from '../../shared/db/connect.ts';
import { TLS_CERT, TLS_KEY } from '../fixtures/tls.ts';
import { forward, listenInFront } from './tcp-proxy.ts';

/** PostgreSQL's SSLRequest code (protocol 3.0). */
const SSL_REQUEST = 80_877_103;

/** A FATAL ErrorResponse as PostgreSQL answers a startup message it refuses, with SQLSTATE `code`. */
export function errorResponse(code: string, message: string): Buffer {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${message}\0RProcessStartupPacket\0\0`);
  const header = Buffer.alloc(5);
  header.write('E', 0);
  header.writeUInt32BE(fields.length + 4, 1);
  return Buffer.concat([header, fields]);
}

/** Answers `client`'s first bytes (its startup message) with `refusal` and closes it cleanly. */
function refuseStartup(client: Socket, refusal: Buffer): void {
  client.once('data', () => client.end(refusal));
}

/** Closes `server` after destroying the client sockets still open. */
async function closeWith(server: Server, clients: Set<Socket>): Promise<void> {
  for (const client of clients) client.destroy();
  await new Promise((resolve) => server.close(resolve));
}

/**
 * A proxy in front of `target`: `reset()` closes every client connection with an RST (the client
 * sees ECONNRESET: 'error', then 'close'); `cut()` does so and closes its port until `restore()`
 * (new connections are refused, as by a server that is away); `sent(marker)` resolves once a
 * client has sent bytes holding `marker` towards the server; `open` counts the client
 * connections open.
 */
export async function startResettingProxy(target: string) {
  const upstream = new URL(target);
  const clients = new Set<Socket>();
  const markers: { marker: string; resolve: () => void }[] = [];
  let refusal: Buffer | undefined;
  const server: Server = createServer((client) => {
    clients.add(client);
    client.on('close', () => clients.delete(client));
    if (refusal) return refuseStartup(client, refusal);
    client.on('data', (bytes: Buffer) => {
      const text = bytes.toString('latin1');
      for (const waiting of markers.splice(0)) {
        if (text.includes(waiting.marker)) waiting.resolve();
        else markers.push(waiting);
      }
    });
    forward(client, upstream);
  });
  const url = await listenInFront(server, target);
  const reset = () => {
    for (const client of clients) client.resetAndDestroy();
  };
  return {
    url,
    get open() {
      return clients.size;
    },
    sent: (marker: string) => new Promise<void>((resolve) => markers.push({ marker, resolve })),
    reset,
    refuse: (error: Buffer) => void (refusal = error),
    flow: () => void (refusal = undefined),
    async cut() {
      const closing = new Promise((resolve) => server.close(resolve));
      reset();
      await closing;
    },
    restore: () => new Promise<void>((resolve) => server.listen(Number(new URL(url).port), '127.0.0.1', resolve)),
    close: () => closeWith(server, clients),
  };
}

/**
 * PostgreSQL's TLS in front of `target`, its `url` asking for it (`sslmode=require`): answers an
 * SSLRequest with `S`, then speaks TLS with the test certificate and passes the plain protocol
 * on; a connection that opens with anything else (a plain CancelRequest) is passed on as is.
 * `secured` counts the connections that asked for TLS; `reset()` ends every one with an RST.
 */
export async function startTlsPostgres(target: string) {
  const upstream = new URL(target);
  const raws = new Set<Socket>();
  let secured = 0;
  let refusal: Buffer | undefined;
  const server: Server = createServer((raw) => {
    raws.add(raw);
    raw.on('close', () => raws.delete(raw));
    raw.on('error', () => raw.destroy());
    raw.once('data', (first: Buffer) => {
      raw.pause();
      if (first.length !== 8 || first.readUInt32BE(4) !== SSL_REQUEST) {
        const backend = forward(raw, upstream);
        backend.write(first);
        return;
      }
      secured += 1;
      raw.write('S');
      const secure = new TLSSocket(raw, { isServer: true, key: TLS_KEY, cert: TLS_CERT });
      secure.on('error', () => raw.destroy());
      if (refusal) refuseStartup(secure, refusal);
      else forward(secure, upstream);
    });
  });
  const url = new URL(await listenInFront(server, target));
  url.searchParams.set('sslmode', 'require');
  return {
    url: url.toString(),
    get secured() {
      return secured;
    },
    reset() {
      for (const raw of raws) raw.resetAndDestroy();
    },
    refuse: (error: Buffer) => void (refusal = error),
    flow: () => void (refusal = undefined),
    close: () => closeWith(server, raws),
  };
}

/**
 * A query sent as `sql`'s next closed connection is handled (the driver's `onclose` hook, in the
 * turn of the event loop where its close is handled): with two connections cut at once, it goes
 * to the other, whose write is then still buffered when its own close comes. Resolves with the
 * query's rows or its error.
 */
export function queryOnNextClose(sql: Sql): Promise<unknown> {
  return new Promise<unknown>((resolve) => {
    const options = (sql as unknown as { options: { onclose?: () => void } }).options;
    options.onclose = () => {
      options.onclose = undefined;
      resolve(sql`select 1`.catch((error: unknown) => error));
    };
  });
}

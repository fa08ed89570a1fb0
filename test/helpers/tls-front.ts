/**
 * TLS in front of a plain local service, with the test certificate for `hooks.example.test`
 * only (test/fixtures/tls.ts): what a broker's TLS scheme (`amqps`, `tls`, `mqtts`, `rediss`)
 * is tested against without a broker configured for TLS. It records the server name each
 * connection asked for (SNI), so a test can tell that the host name, not the address, was sent.
 */
import { connect as connectTcp, type AddressInfo } from 'node:net';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import { TLS_CERT, TLS_KEY } from '../fixtures/tls.ts';

/** A running TLS front. */
export interface TlsFront {
  port: number;
  /** The SNI server name of each connection, in order (`false` or null when none was sent). */
  names: Array<string | false | null>;
  close(): Promise<void>;
}

/** Starts TLS on a free loopback port, passing each connection on to `backendPort` in plain. */
export async function startTlsFront(backendPort: number, backendHost = '127.0.0.1'): Promise<TlsFront> {
  const names: Array<string | false | null> = [];
  const server = createTlsServer({ key: TLS_KEY, cert: TLS_CERT }, (socket) => {
    names.push((socket as TLSSocket).servername);
    const backend = connectTcp(backendPort, backendHost);
    socket.on('error', () => backend.destroy());
    backend.on('error', () => socket.destroy());
    socket.pipe(backend).pipe(socket);
  });
  server.on('tlsClientError', () => undefined); // a client that refuses our certificate: its test says so
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    names,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }),
  };
}

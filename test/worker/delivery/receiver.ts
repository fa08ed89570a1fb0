/**
 * Test receivers: real `node:http` (or `node:https`) servers on 127.0.0.1, port 0, that count
 * the TCP connections and the requests reaching them and keep each request's method, url, headers and
 * body.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createTlsServer, type ServerOptions as TlsServerOptions } from 'node:https';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Receiver {
  /** `http://127.0.0.1:<port>` (or `https://`). */
  origin: string;
  port: number;
  connections: number;
  requests: Received[];
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

/**
 * Starts a receiver; `handler` runs once the request body has been read in full. With `tls`
 * the receiver speaks HTTPS.
 */
export async function startReceiver(handler: Handler, tls?: TlsServerOptions): Promise<Receiver> {
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      receiver.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  };
  const server: Server = tls === undefined ? createServer(onRequest) : createTlsServer(tls, onRequest);
  const receiver: Receiver = {
    origin: '',
    port: 0,
    connections: 0,
    requests: [],
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  server.on('connection', () => {
    receiver.connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.origin = `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${receiver.port}`;
  return receiver;
}

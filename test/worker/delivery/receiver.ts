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

/** A receiver that can hold what it gets: while `holding`, requests are never answered. */
export interface HoldingReceiver {
  receiver: Receiver;
  /** Whether requests are held now (never answered: in flight when a worker dies). */
  holding: boolean;
  /** The `webhook-id`s held. */
  held: Set<string>;
  /** The `webhook-id`s answered 200. */
  arrived: Set<string>;
}

/** Starts a receiver that answers at once, or holds every request while `holding` is set. */
export async function startHoldingReceiver(holding: boolean): Promise<HoldingReceiver> {
  const state = { holding, held: new Set<string>(), arrived: new Set<string>() } as HoldingReceiver;
  state.receiver = await startReceiver((req, res) => {
    const id = String(req.headers['webhook-id']);
    if (state.holding) {
      state.held.add(id);
      return;
    }
    state.arrived.add(id);
    res.end('ok');
  });
  return state;
}

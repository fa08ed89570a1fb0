/**
 * A TCP proxy in front of a server (PostgreSQL, a broker) that a test can cut: `cut()` destroys
 * every connection and refuses new ones (the port is closed), `restore()` listens again on the
 * same port. `stall()` makes it a black hole instead: connections stay open (and new ones are
 * accepted) but nothing passes either way, as with a server that stopped answering; `flow()`
 * forwards new connections again. `refuse()` plays a proxy whose server is down: every connection
 * is closed, and new ones are accepted and closed at once, cleanly; `flow()` ends that too. The
 * service under test is given `url`; the test keeps its own direct connection.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  /** `target` with host and port replaced by the proxy's. */
  url: string;
  /** The port it listens on (on 127.0.0.1). */
  port: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Client connections open now. */
  readonly open: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  stall(): void;
  refuse(): void;
  flow(): void;
  close(): Promise<void>;
}

/** Starts one on 127.0.0.1 `listenPort` (default: a free port) in front of `target`'s host and port. */
export async function startTcpProxy(target: string, listenPort = 0): Promise<TcpProxy> {
  const upstream = new URL(target);
  const sockets = new Set<Socket>();
  const clients = new Set<Socket>();
  /** Stops a forwarding connection: both sockets stay open, their data is read and dropped. */
  const holes = new Set<() => void>();
  let server: Server | undefined;
  let port = listenPort;
  let accepted = 0;
  let stalled = false;
  let refusing = false;
  const listen = async () => {
    server = createServer((client) => {
      accepted += 1;
      clients.add(client);
      client.on('close', () => clients.delete(client));
      sockets.add(client);
      client.on('error', () => client.destroy());
      client.on('close', () => sockets.delete(client));
      if (stalled) {
        client.resume();
        return;
      }
      if (refusing) {
        client.resume();
        client.end();
        return;
      }
      const backend = connect(Number(upstream.port || 5432), upstream.hostname);
      for (const socket of [client, backend]) {
        sockets.add(socket);
        socket.on('error', () => socket.destroy());
        socket.on('close', () => {
          sockets.delete(socket);
          client.destroy();
          backend.destroy();
        });
      }
      client.pipe(backend).pipe(client);
      holes.add(() => {
        client.unpipe(backend);
        backend.unpipe(client);
        client.resume();
        backend.resume();
      });
    });
    await new Promise<void>((resolve) => (server as Server).listen(port, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  };
  await listen();
  const url = new URL(target);
  url.host = `127.0.0.1:${port}`;
  const cut = async () => {
    const closing = new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    for (const socket of sockets) socket.destroy();
    await closing;
    server = undefined;
  };
  return {
    url: url.toString(),
    port,
    get accepted() {
      return accepted;
    },
    get open() {
      return clients.size;
    },
    cut,
    restore: listen,
    stall() {
      stalled = true;
      for (const hole of holes) hole();
      holes.clear();
    },
    refuse() {
      refusing = true;
      for (const socket of sockets) socket.end();
    },
    flow() {
      stalled = false;
      refusing = false;
    },
    close: cut,
  };
}

/**
 * Forwards `client` to `upstream`'s host and port, both ways, for a test's own proxy: either
 * side's error or close ends the other. Answers the upstream socket.
 */
export function forward(client: Socket, upstream: URL): Socket {
  const backend = connect(Number(upstream.port || 5432), upstream.hostname);
  client.on('error', () => backend.destroy());
  backend.on('error', () => client.destroy());
  client.on('close', () => backend.destroy());
  backend.on('close', () => client.destroy());
  client.pipe(backend).pipe(client);
  return backend;
}

/** Listens with `server` on a free port of 127.0.0.1 and answers `target` with that host and port. */
export async function listenInFront(server: Server, target: string): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.host = `127.0.0.1:${(server.address() as { port: number }).port}`;
  return url.toString();
}

/**
 * A TCP proxy in front of PostgreSQL that a test can cut: `cut()` destroys every connection and
 * refuses new ones (the port is closed), `restore()` listens again on the same port. The service
 * under test is given `url`; the test keeps its own direct connection.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  /** `target` with host and port replaced by the proxy's. */
  url: string;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const upstream = new URL(target);
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = async () => {
    server = createServer((client) => {
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
    cut,
    restore: listen,
    close: cut,
  };
}

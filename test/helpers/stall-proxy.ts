/**
 * A TCP forwarder in front of a broker that a test can make go silent: `stall()` keeps every
 * connection open but passes nothing more either way, and new connections are accepted and left
 * unanswered (an acknowledgement that never comes); `resume()` forwards again for connections
 * made after it (a stalled one stays silent: what it dropped would garble the protocol). `cut()` destroys every connection (a broker restart, as the client sees it).
 * `accepted` counts the connections made through it, to see connections reused.
 */
import { connect, createServer, type Socket } from 'node:net';

export interface StallProxy {
  port: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Clients' connections open now. */
  readonly open: number;
  stall(): void;
  resume(): void;
  cut(): void;
  close(): Promise<void>;
}

/** Starts one on 127.0.0.1 `port` (default: any free one), forwarding to `targetPort` on 127.0.0.1. */
export async function startStallProxy(targetPort: number, port = 0): Promise<StallProxy> {
  const sockets = new Set<Socket>();
  /** Whether each forwarding connection still forwards: a stalled one stays silent for good. */
  const forwarding = new Set<{ on: boolean }>();
  let stalled = false;
  const clients = new Set<Socket>();
  let accepted = 0;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => sockets.delete(socket));
  };
  const server = createServer((client) => {
    accepted += 1;
    track(client);
    clients.add(client);
    client.on('close', () => clients.delete(client));
    if (stalled) {
      client.resume(); // read and drop: the peer's writes succeed, no answer ever comes
      return;
    }
    const backend = connect(targetPort, '127.0.0.1');
    track(backend);
    const state = { on: true };
    forwarding.add(state);
    client.on('close', () => {
      forwarding.delete(state);
      backend.destroy();
    });
    backend.on('close', () => client.destroy());
    client.on('data', (chunk) => {
      if (state.on) backend.write(chunk);
    });
    backend.on('data', (chunk) => {
      if (state.on) client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const listening = (server.address() as { port: number }).port;
  const cut = () => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    port: listening,
    get accepted() {
      return accepted;
    },
    get open() {
      return clients.size;
    },
    stall: () => {
      stalled = true;
      for (const state of forwarding) state.on = false;
    },
    resume: () => {
      stalled = false;
    },
    cut,
    close: async () => {
      const closing = new Promise((resolve) => server.close(resolve));
      cut();
      await closing;
    },
  };
}

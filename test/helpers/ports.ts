import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * The ports the kernel hands out for port 0 (every test's own servers and clients), so that a port
 * chosen below them is not handed to another test between its choice and its use.
 */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high) && low > 0) return [low, high];
  } catch {
    // not Linux: the usual range of the others
  }
  return [49152, 65535];
}

/** Whether a server can listen on `port` at `host` (every address when undefined) right now. */
function listenableAt(port: number, host?: string): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** Whether `port` is free on every address (as the service's processes listen) and on the loopback. */
async function listenable(port: number): Promise<boolean> {
  return (await listenableAt(port)) && (await listenableAt(port, '127.0.0.1'));
}

/**
 * A TCP port free right now, for a process that must be told its port before it starts. It is
 * chosen at random below the range the kernel gives port-0 sockets from, not by listening on port
 * 0: a port taken that way and let go was soon given to another test's port-0 server (the suite
 * runs files in parallel) before the process told to use it had started, which then failed with
 * EADDRINUSE.
 */
export async function freePort(): Promise<number> {
  const [low] = ephemeralRange();
  const floor = 10_000;
  for (let tries = 0; tries < 50; tries += 1) {
    const port = low > floor + 1_000 ? randomInt(floor, low) : randomInt(1_024, 65_536);
    if (await listenable(port)) return port;
  }
  throw new Error('no free port found in 50 tries');
}

/** A port another server holds (on the loopback, port 0) until `close`: for the tests of a port taken. */
export async function heldPort(): Promise<{ port: number; close: () => Promise<void> }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

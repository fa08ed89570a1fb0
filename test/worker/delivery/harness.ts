/**
 * What the delivery tests share: receivers (node:http ones, and raw ones writing any bytes) and
 * pinned dispatchers closed when the test file ends (registered on the file's root test at
 * import), and a lookup answering fixed addresses.
 */
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { after } from 'node:test';
import type { Agent } from 'undici';
import type { HostLookup } from '../../../shared/webhooks/address-rules.ts';
import { createPinnedDispatcher } from '../../../worker/delivery/pinned-dispatcher.ts';
import { startReceiver, type Receiver } from './receiver.ts';

const open: Array<{ close(): unknown }> = [];
after(async () => {
  for (const item of open.reverse()) await item.close();
});

/** A receiver on 127.0.0.1 (see receiver.ts), closed when the file's tests end. */
export async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const started = await startReceiver(...args);
  open.push(started);
  return started;
}

/**
 * A receiver on 127.0.0.1 that writes `answer` as it is, byte for byte, and closes, once what it
 * received ends with `requestEnd` (the end of the request's body; `''`: at the first bytes, a TLS
 * hello included): for answers `node:http` refuses to write. Answers `http://127.0.0.1:<port>`;
 * closed when the file's tests end.
 */
export async function rawReceiver(answer: string | Buffer, requestEnd: string): Promise<string> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      if (socket.writableEnded) return;
      received += chunk.toString('latin1');
      if (received.endsWith(requestEnd)) socket.end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.push({
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A pinned dispatcher with a 2 s connect timeout, closed when the file's tests end. */
export function dispatcher(options: Omit<Parameters<typeof createPinnedDispatcher>[0], 'connectTimeoutMs'>): Agent {
  const agent = createPinnedDispatcher({ connectTimeoutMs: 2000, ...options });
  open.push(agent);
  return agent;
}

/** A lookup answering `addresses` for any name, counting its calls. */
export const lookupAnswering = (...addresses: string[]): HostLookup & { calls: number } => {
  const lookup = Object.assign(
    async () => {
      lookup.calls += 1;
      return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    },
    { calls: 0 },
  );
  return lookup;
};

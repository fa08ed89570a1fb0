/**
 * What the delivery tests share: receivers and pinned dispatchers closed when the test file
 * ends (registered on the file's root test at import), and a lookup answering fixed addresses.
 */
import { after } from 'node:test';
import type { Agent } from 'undici';
import type { HostLookup } from '../../../shared/webhooks/address-rules.ts';
import { createPinnedDispatcher } from '../../../worker/delivery/pinned-dispatcher.ts';
import { startReceiver, type Receiver } from './receiver.ts';

const open: Array<Receiver | Agent> = [];
after(async () => {
  for (const item of open.reverse()) await item.close();
});

/** A receiver on 127.0.0.1 (see receiver.ts), closed when the file's tests end. */
export async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const started = await startReceiver(...args);
  open.push(started);
  return started;
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

/**
 * What the broker senders' tests share: a silent logger, senders and proxies closed when the
 * test file ends, and a message shaped as the worker makes them (the Standard Webhooks headers
 * and one of the endpoint's own).
 */
import { randomUUID } from 'node:crypto';
import { after } from 'node:test';
import { createLogger } from '../../../shared/log/logger.ts';
import type { BrokerMessage, BrokerSenderOptions } from '../../../worker/destinations/types.ts';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.ts';

const closing: Array<() => Promise<unknown>> = [];
after(async () => {
  for (const close of closing.splice(0).reverse()) await close().catch(() => undefined);
});

/** `thing`, closed when the test file ends. */
export function closedAfter<T extends { close(): Promise<unknown> }>(thing: T): T {
  closing.push(() => thing.close());
  return thing;
}

/** Options of a sender in a test: nothing logged, `idleMs` when given. */
export function senderOptions(idleMs?: number): BrokerSenderOptions {
  const log = createLogger({ env: 'test', logLevel: 'silent', filterParameters: [] }, { name: 'test' });
  return { log, ...(idleMs === undefined ? {} : { idleMs }) };
}

/** A proxy in front of 127.0.0.1 `port`, closed when the test file ends. */
export async function proxy(port: number): Promise<TcpProxy> {
  return closedAfter(await startTcpProxy(`tcp://127.0.0.1:${port}`));
}

/** A message with a new id, a JSON body and the headers an HTTP receiver would get. */
export function testMessage(): BrokerMessage {
  const id = `msg_${randomUUID()}`;
  return {
    id,
    body: JSON.stringify({ type: 'order.created', data: { id } }),
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': '1700000000',
      'webhook-signature': 'v1,c2lnbmF0dXJl',
      'x-tenant': 'acme',
    },
  };
}

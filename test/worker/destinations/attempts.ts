/**
 * For the broker senders' tests: an attempt to the destination a URL names, with a message
 * signed as the worker signs it (Standard Webhooks headers over the JSON body), and a logger
 * whose lines the test can read.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { resolveConfig } from '../../../shared/config/index.ts';
import { createLogger } from '../../../shared/log/logger.ts';
import type { HostLookup } from '../../../shared/webhooks/address-rules.ts';
import { parseBrokerUrl, type BrokerDestination } from '../../../shared/webhooks/destinations/parse.ts';
import { dialTarget } from '../../../worker/destinations/dial.ts';
import type { BrokerAttempt } from '../../../worker/destinations/types.ts';
import { linesInto } from '../../helpers/logs.ts';

/** The secret the test messages are signed with. */
export const SECRET = `whsec_${randomBytes(24).toString('base64')}`;

let count = 0;

/** A unique name for a queue, exchange, subject or stream of one test. */
export const unique = (prefix: string) => `${prefix}_${process.pid}_${Date.now().toString(36)}_${++count}`;

/** An attempt of a signed `{"data":{n},…}` message to `url` (the loopback allowed; `lookup` resolves its host). */
export async function attemptTo<D extends BrokerDestination>(
  url: string,
  options: { n?: number; timeoutMs?: number; headers?: Record<string, string>; lookup?: HostLookup } = {},
): Promise<BrokerAttempt<D>> {
  const destination = parseBrokerUrl(new URL(url)) as D;
  const dial = await dialTarget(destination.host, destination.port, {
    allowPrivate: true,
    ...(options.lookup === undefined ? {} : { lookup: options.lookup }),
  });
  if ('kind' in dial) throw new Error(`no dial target for ${url}: ${dial.kind}`);
  const id = `msg_${randomBytes(12).toString('hex')}`;
  const at = new Date();
  const body = JSON.stringify({ data: { n: options.n ?? 1 }, id, timestamp: at.toISOString(), type: 'order.created' });
  return {
    destination,
    dial,
    timeoutMs: options.timeoutMs ?? 5_000,
    message: {
      id,
      body,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'user-agent': 'app-webhooks/test',
        ...options.headers,
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': new Webhook(SECRET).sign(id, at, body),
      },
    },
  };
}

/** A logger writing its lines into `lines`. */
export function capturedLog(lines: Record<string, unknown>[] = []) {
  const { config } = resolveConfig({ env: { NODE_ENV: 'test', LOG_LEVEL: 'debug' } });
  return { log: createLogger(config, { name: 'test', destination: linesInto(lines) }), lines };
}

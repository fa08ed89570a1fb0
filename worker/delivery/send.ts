/**
 * One delivery attempt to whatever the endpoint's URL names: an HTTP receiver gets the signed
 * POST (post.ts); a broker (amqp, nats, mqtt, redis) gets the same body and headers as one
 * message (worker/destinations/). Both report the attempt as an `AttemptResult`, and neither
 * throws for anything the destination, the network or the URL does.
 *
 * A broker's URL passes the same rules as an HTTP receiver's before every attempt: the scheme
 * (plain ones only with `webhooks.allowHttp`), the address rules on its host, resolved once and
 * every address checked, and the connection made to a checked address.
 */
import type { Dispatcher } from 'undici';
import { checkWebhookUrl, type HostLookup } from '../../shared/webhooks/address-rules.ts';
import { parseBrokerUrl } from '../../shared/webhooks/destinations/parse.ts';
import { scrubCredentials } from '../../shared/webhooks/destinations/credentials.ts';
import { dialTarget } from '../destinations/dial.ts';
import type { Destinations } from '../destinations/index.ts';
import { isAddressRefusal, postDelivery, refused, type AttemptResult, type DeliveryRequest } from './post.ts';

/** What an attempt is sent with: the process's HTTP dispatcher and broker senders. */
export interface Senders {
  dispatcher: Dispatcher;
  /** Absent: broker URLs fail as invalid (a run outside a worker). */
  destinations?: Destinations;
  /** Resolves broker hosts (default: the system resolver). */
  lookup?: HostLookup;
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Performs one attempt of `request` to the destination its URL names. */
export async function sendDelivery(senders: Senders, request: DeliveryRequest): Promise<AttemptResult> {
  if (/^https?:/i.test(request.url)) return postDelivery(senders.dispatcher, request);
  const started = performance.now();
  let url: URL;
  try {
    url = checkWebhookUrl(request.url, { allowHttp: request.allowHttp, allowPrivate: request.allowPrivate });
  } catch (error) {
    if (isAddressRefusal(error)) return refused(error, Math.round(performance.now() - started));
    return { kind: 'invalid-url', error: describe(error) };
  }
  const destination = parseBrokerUrl(url);
  if (destination === null) return postDelivery(senders.dispatcher, request);
  const sender = await senders.destinations?.sender(destination.kind);
  if (sender === undefined)
    return { kind: 'invalid-url', error: `no sender for ${destination.kind} destinations here` };
  const dial = await dialTarget(destination.host, destination.port, {
    allowPrivate: request.allowPrivate,
    ...(senders.lookup === undefined ? {} : { lookup: senders.lookup }),
  });
  if ('kind' in dial) return dial;
  const body = typeof request.body === 'string' ? request.body : Buffer.from(request.body).toString('utf8');
  const result = await sender.send({
    destination,
    dial,
    message: { id: request.headers['webhook-id'] ?? '', body, headers: request.headers },
    timeoutMs: Math.max(1, request.timeoutMs - Math.round(performance.now() - started)),
  });
  // what a broker client says is stored and shown: never with the credentials it was given
  const scrubbed =
    'error' in result
      ? { ...result, error: scrubCredentials(result.error, request.url) }
      : 'detail' in result
        ? { ...result, detail: scrubCredentials(result.detail, request.url) }
        : result;
  return scrubbed.kind === 'address-refused' || scrubbed.kind === 'invalid-url' || scrubbed.address !== undefined
    ? scrubbed
    : { ...scrubbed, address: dial.address };
}

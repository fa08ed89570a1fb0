/**
 * What a broker destination does for the delivery worker: publish one signed message and report
 * the attempt as data, like an HTTP POST (worker/delivery/post.ts), so the outcome table, retries
 * and dead letters treat every destination alike.
 */
import type { Logger } from '../../shared/log/logger.ts';
import type { BrokerDestination } from '../../shared/webhooks/destinations/parse.ts';
import type { AttemptResult } from '../delivery/post.ts';
import type { DialTarget } from './dial.ts';

/** One message: the body an HTTP receiver gets and the headers of its POST. */
export interface BrokerMessage {
  /** The delivery id, also `webhook-id` in `headers`. */
  id: string;
  body: string;
  /**
   * Every header an HTTP receiver would get (content-type, user-agent, the endpoint's own
   * headers, `webhook-id`, `webhook-timestamp`, `webhook-signature`, and `traceparent` when
   * traced), carried as the broker's headers, user properties or stream fields.
   */
  headers: Record<string, string>;
}

/** One attempt of a broker destination. */
export interface BrokerAttempt<D extends BrokerDestination = BrokerDestination> {
  destination: D;
  /** The checked address to connect to (dial.ts); TLS verifies the certificate for `dial.host`. */
  dial: DialTarget;
  message: BrokerMessage;
  /** Bound on the whole attempt (`webhooks.timeout`): connecting if needed, publishing, the acknowledgement. */
  timeoutMs: number;
}

/**
 * A broker's sender, one per worker process: it keeps a pool of connections per destination
 * (pool.ts), reused across deliveries and closed when idle, and never throws for anything the
 * broker or the network does: the attempt's result says it.
 */
export interface BrokerSender<D extends BrokerDestination = BrokerDestination> {
  send(attempt: BrokerAttempt<D>): Promise<AttemptResult>;
  /** Closes every connection (the worker stops). */
  close(): Promise<void>;
}

/** What every sender is made with. */
export interface BrokerSenderOptions {
  log: Logger;
  /** How long an unused connection stays open (default `IDLE_CLOSE_MS`). */
  idleMs?: number;
  /** Certificate authorities trusted instead of Node's bundled ones (tests, a private CA). */
  ca?: string | Buffer | Array<string | Buffer>;
}

/** How long an unused broker connection stays open before it is closed. */
export const IDLE_CLOSE_MS = 30_000;

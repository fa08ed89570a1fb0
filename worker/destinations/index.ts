/**
 * The broker senders of one worker process, made on first use of each kind: a worker whose
 * endpoints are all HTTP receivers never loads a broker client.
 */
import type { BrokerDestination } from '../../shared/webhooks/destinations/parse.ts';
import type { BrokerSender, BrokerSenderOptions } from './types.ts';

type BrokerKind = BrokerDestination['kind'];
type SenderModule = { createSender(options: BrokerSenderOptions): BrokerSender };

/** How each broker's sender module is loaded. */
const LOADERS: { [K in BrokerKind]?: () => Promise<SenderModule> } = {
  amqp: () => import('./amqp.ts') as Promise<SenderModule>,
  nats: () => import('./nats.ts') as Promise<SenderModule>,
  mqtt: () => import('./mqtt.ts') as Promise<SenderModule>,
  redis: () => import('./redis.ts') as Promise<SenderModule>,
};

/** The broker senders of a process. */
export interface Destinations {
  /** The sender of `kind`, or undefined when this build has none for it. */
  sender(kind: BrokerKind): Promise<BrokerSender | undefined>;
  /** Closes every sender's connections (the worker stops). */
  close(): Promise<void>;
}

/** The process's senders, made with `options` when first needed. */
export function createDestinations(options: BrokerSenderOptions): Destinations {
  const senders = new Map<BrokerKind, Promise<BrokerSender>>();
  return {
    sender(kind) {
      const load = LOADERS[kind];
      if (load === undefined) return Promise.resolve(undefined);
      let sender = senders.get(kind);
      if (sender === undefined) {
        sender = load().then((module) => module.createSender(options));
        senders.set(kind, sender);
        sender.catch(() => senders.delete(kind));
      }
      return sender;
    },
    async close() {
      const all = [...senders.values()];
      senders.clear();
      await Promise.all(all.map((sender) => sender.then((s) => s.close()).catch(() => undefined)));
    },
  };
}

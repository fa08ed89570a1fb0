/**
 * A broker the delivery benchmark sends to instead of its HTTP receiver
 * (`npm run bench:delivery -- --destination <kind>`): the endpoint URLs to register, and a
 * consumer of our own that reports each message's body as it arrives.
 */
export interface BenchDestination {
  /** The URL of endpoint number `index` (its own queue, subject, topic or stream). */
  url(index: number): string;
  /** Starts consuming; `onMessage` gets each message's body, in arrival order. */
  start(onMessage: (body: string) => void): Promise<void>;
  /** Stops consuming and removes what the run made (queues, streams, keys). */
  close(): Promise<void>;
}

/** Each broker's module exports `openBenchDestination`; `run` makes its names unique. */
export type OpenBenchDestination = (run: string) => Promise<BenchDestination>;

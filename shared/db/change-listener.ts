/**
 * LISTEN on one channel for a per-process cache that may keep what it reads only while it hears
 * every change announced there (the token cache, the endpoint cache). Listening starts on the
 * first `ensure()`, so making one needs no database. The cache is told to start empty on every
 * (re)connection, since whatever was announced while the connection was down is lost; while not
 * listening it keeps nothing. A failed LISTEN is retried at most every `retryMs`, and reported
 * through `onFailure` once per attempt.
 */
import type { Sql } from './connect.ts';

export interface ChangeListener {
  /** Starts listening unless it listens already, an attempt is under way, or the last one failed within `retryMs`. */
  ensure(): void;
  /** Whether the process hears every change now. */
  listening(): boolean;
  /** The current attempt: true once LISTEN is active, false when it failed (or none started). */
  attempt(): Promise<boolean>;
  /** Stops listening for good. */
  close(): Promise<void>;
}

export function createChangeListener(options: {
  sql: Sql;
  channel: string;
  /** A change announced on the channel (its payload). */
  onNotify(payload: string): void;
  /** Every (re)connection: drop everything kept, changes may have been missed. */
  onConnect(): void;
  /** A LISTEN that failed; it is tried again at most every `retryMs`. */
  onFailure(error: unknown): void;
  retryMs: number;
  now: () => number;
}): ChangeListener {
  let listening = false;
  let started = false;
  let lastFailure = Number.NEGATIVE_INFINITY;
  let unlisten: (() => Promise<void>) | undefined;
  let closed = false;
  let attempt: Promise<boolean> = Promise.resolve(false);

  return {
    ensure() {
      if (started || closed || options.now() - lastFailure < options.retryMs) return;
      started = true;
      attempt = options.sql
        .listen(options.channel, options.onNotify, () => {
          options.onConnect();
          listening = !closed;
        })
        .then((meta) => {
          unlisten = meta.unlisten;
          if (closed) void meta.unlisten().catch(() => undefined);
          return listening;
        })
        .catch((error: unknown) => {
          started = false;
          listening = false;
          lastFailure = options.now();
          options.onFailure(error);
          return false;
        });
    },
    listening: () => listening && !closed,
    attempt: () => attempt,
    async close() {
      closed = true;
      listening = false;
      await unlisten?.().catch(() => undefined);
    },
  };
}

/**
 * The shared backend (`shared.backend`): one store that every web process uses
 * for idempotency records, rate-limit counters and the sign-in lockout.
 *
 * Glossary
 * - backend: where the data lives: `memory` (this process only), `postgres` (the service's own
 *   database, or the one `shared.url` names), `redis` (`shared.url`).
 * - entry: a JSON value under a key with an absolute expiry; the unit of {@link KeyValueStore}.
 * - counter: a fixed-window hit counter (rate-limiter-flexible underneath), see {@link Counter}.
 * - store failure: the backend did not answer (error or `shared.timeout`); callers turn it into
 *   503 `APP_STORE_SHARED_UNAVAILABLE` or serve uncounted, per `shared.onError`.
 */
import type { Logger } from '../log/logger.ts';

/** JSON values only: entries cross process boundaries. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * How a write weighs against a bound that evicts entries before they expire (the memory
 * backend's `shared.maxMemoryBytes`; the other backends keep every entry until it expires and
 * ignore it).
 */
export interface EntryOptions {
  /**
   * How much the entry refuses: 0 (the default) for one that refuses nothing; for one that holds
   * a refusal, at most the requests it took to write it (a lockout's failure slot: the failures
   * before it; a lock: `auth.lockout.attempts`; a rate-limit key at its limit: its points).
   * Past the bound the lowest priority gives way first, so a flood evicts an entry only with
   * entries of its own of at least that priority, each costing the flooder as many requests.
   */
  priority?: number;
}

/**
 * A key-value store with expiry. Every method rejects when the backend does not answer.
 * Expiry is judged by the store's clock (`now`, injectable for tests): an expired entry reads
 * as absent and may be replaced by `add`, even before the backend has purged it.
 */
export interface KeyValueStore {
  /** The value under `key`, or undefined when absent or expired. */
  get(key: string): Promise<Json | undefined>;
  /** Stores `value` for `ttlMs`, replacing whatever was there. */
  set(key: string, value: Json, ttlMs: number, options?: EntryOptions): Promise<void>;
  /**
   * Stores `value` for `ttlMs` only when `key` is absent or expired; true when it stored.
   * Atomic across every process sharing the backend: of many concurrent adds, one wins.
   */
  add(key: string, value: Json, ttlMs: number, options?: EntryOptions): Promise<boolean>;
  /** Removes `key` (absent: nothing happens). */
  delete(key: string): Promise<void>;
}

/** The state of one counter key after a hit. */
export interface CounterState {
  /** Whether this hit is within the limit. */
  allowed: boolean;
  /** Hits left in the window after this one (0 when refused). */
  remaining: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
}

/** A fixed-window counter: at most `points` hits per key per `windowMs`. */
export interface Counter {
  readonly points: number;
  readonly windowMs: number;
  /** Counts one hit on `key`; rejects when the backend does not answer. */
  hit(key: string): Promise<CounterState>;
}

export interface CounterOptions {
  /** Distinguishes the counters of one backend (`global`, `auth`, `route:POST /orders`). */
  name: string;
  points: number;
  /** Window length; counted in whole seconds (rounded up), as the RateLimit headers are. */
  windowMs: number;
}

/** The shared backend of one web process. Doubles as the readiness probe (`name`, `adapter`, `ping`). */
export interface SharedStore {
  readonly backend: 'memory' | 'postgres' | 'redis';
  /** Readiness name (`shared`). */
  readonly name: string;
  /** Readiness adapter (`memory`, `postgresql`, `redis`). */
  readonly adapter: string;
  /** Where counts are kept, for the boot line: `postgres`, `redis`, `this process`. */
  readonly where: string;
  /** Idempotency records (and, later, sign-in lockouts). */
  readonly entries: KeyValueStore;
  /** Logs failures of this store and of the features using it, throttled (one line per ten seconds). */
  readonly logFailure: FailureLog;
  /** A counter kept in this backend. */
  counter(options: CounterOptions): Counter;
  /** Resolves when the backend answered; rejects otherwise (readiness). */
  ping(): Promise<void>;
  /** Connects (never throws: a backend that is down makes requests fail, not the boot). */
  start(): Promise<void>;
  /** Closes connections and timers. */
  stop(): Promise<void>;
}

/** Logs store failures, at most one line per interval (once every ten seconds: throttle.ts). */
export type FailureLog = (error: unknown, what: string) => void;

export interface StoreDeps {
  log: Logger;
  /** The clock entries expire by (default `Date.now`). */
  now?: () => number;
}

import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { Logger } from '../log/logger.ts';
import { counterFrom, windowSeconds } from './counter.ts';
import type { FailureLog, Json, KeyValueStore, SharedStore } from './types.ts';

/** How often expired entries are swept from memory. */
const SWEEP_MS = 60_000;

/** The bound's first eviction is logged at once; later ones at most once in this interval. */
export const EVICTION_LOG_INTERVAL_MS = 60_000;

/** What one entry is counted as besides its key and JSON text: the Map slot and the record around them. */
export const ENTRY_OVERHEAD_BYTES = 100;

/**
 * The bytes one entry is counted as: a byte per character of its key and JSON text (the keys and
 * the stored answers, sealed in base64, are ASCII, which V8 keeps one byte per character) plus
 * {@link ENTRY_OVERHEAD_BYTES}.
 */
export const entryBytes = (key: string, text: string): number => key.length + text.length + ENTRY_OVERHEAD_BYTES;

/** What an entry's key is a record of: the part before its first colon (`idem`, `lockout`, `console-once`, `rate`). */
export const kindOf = (key: string): string => {
  const colon = key.indexOf(':');
  return colon < 0 ? '' : key.slice(0, colon);
};

interface Entry {
  text: string;
  expiresAt: number;
  bytes: number;
}

/** The entries of one kind, oldest written first (a Map keeps insertion order). */
interface Kind {
  map: Map<string, Entry>;
  bytes: number;
}

export interface MemoryEntriesOptions {
  now?: () => number;
  /** Most bytes all entries together are counted as ({@link entryBytes}); unbounded when absent. */
  maxBytes?: number;
  /** Called for each live entry the bound evicts. */
  onEvict?: (key: string) => void;
  /** Called with the bytes held after each change (a gauge). */
  onBytes?: (bytes: number) => void;
}

export type MemoryEntries = KeyValueStore & {
  /** Drops expired entries; returns how many. */
  purge(): number;
  readonly size: number;
  /** The bytes the entries are counted as together, never above `maxBytes` after a write returns. */
  readonly bytes: number;
};

/**
 * Entries in this process's memory. Values are kept as JSON text, so a caller never shares an
 * object with the store (what a remote backend would give back is a copy too).
 *
 * Bounded by `maxBytes`: a write that takes the total past it evicts entries until it fits,
 * always from the kind of entry holding the most bytes, oldest written first (expired ones
 * simply go). So a flood of one kind (idempotency answers) evicts its own oldest records and
 * not the few small ones of another (a sign-in lockout's failure slots) while it is the largest.
 */
export function memoryEntries(options: MemoryEntriesOptions = {}): MemoryEntries {
  const now = options.now ?? Date.now;
  const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
  const kinds = new Map<string, Kind>();
  let total = 0;
  let count = 0;
  const remove = (kind: Kind, key: string, entry: Entry) => {
    kind.map.delete(key);
    kind.bytes -= entry.bytes;
    total -= entry.bytes;
    count -= 1;
    options.onBytes?.(total);
  };
  const find = (key: string) => {
    const kind = kinds.get(kindOf(key));
    const entry = kind?.map.get(key);
    return kind && entry ? { kind, entry } : undefined;
  };
  const live = (key: string) => {
    const found = find(key);
    if (found && found.entry.expiresAt <= now()) {
      remove(found.kind, key, found.entry);
      return undefined;
    }
    return found?.entry;
  };
  const largest = () => {
    let most: Kind | undefined;
    for (const kind of kinds.values()) if (!most || kind.bytes > most.bytes) most = kind;
    return most;
  };
  const fit = () => {
    const at = now();
    while (total > maxBytes) {
      const kind = largest() as Kind; // total > 0: some kind holds bytes
      const [key, entry] = kind.map.entries().next().value as [string, Entry];
      remove(kind, key, entry);
      if (entry.expiresAt > at) options.onEvict?.(key);
    }
  };
  const write = (key: string, value: Json, ttlMs: number) => {
    const found = find(key);
    if (found) remove(found.kind, key, found.entry); // written again: the newest of its kind
    const name = kindOf(key);
    let kind = kinds.get(name);
    if (!kind) kinds.set(name, (kind = { map: new Map(), bytes: 0 }));
    const text = JSON.stringify(value);
    const entry = { text, expiresAt: now() + ttlMs, bytes: entryBytes(key, text) };
    kind.map.set(key, entry);
    kind.bytes += entry.bytes;
    total += entry.bytes;
    count += 1;
    fit();
    options.onBytes?.(total);
  };
  return {
    async get(key) {
      const entry = live(key);
      return entry ? (JSON.parse(entry.text) as Json) : undefined;
    },
    async set(key, value, ttlMs) {
      write(key, value, ttlMs);
    },
    async add(key, value, ttlMs) {
      if (live(key)) return false;
      write(key, value, ttlMs);
      return true;
    },
    async delete(key) {
      const found = find(key);
      if (found) remove(found.kind, key, found.entry);
    },
    purge() {
      let purged = 0;
      const at = now();
      for (const kind of kinds.values()) {
        for (const [key, entry] of kind.map) {
          if (entry.expiresAt <= at) {
            remove(kind, key, entry);
            purged += 1;
          }
        }
      }
      return purged;
    },
    get size() {
      return count;
    },
    get bytes() {
      return total;
    },
  };
}

/** Told of the bound's work: each eviction (its kind), and the bytes held after each change. */
export interface MemoryWatch {
  evicted(kind: string): void;
  bytes(total: number): void;
}

/**
 * Logs the bound's evictions: a warning at the first, then at most one line per
 * {@link EVICTION_LOG_INTERVAL_MS} saying how many were evicted since the last line. An evicted
 * idempotency key runs its request again on a retry, an evicted lockout slot is a failure
 * forgotten: the operator is told the bound is too small for the traffic.
 */
export function evictionWarning(log: Logger, options: { maxBytes: number; now?: () => number }): (key: string) => void {
  const now = options.now ?? Date.now;
  let last = Number.NEGATIVE_INFINITY;
  let evicted = 0;
  return (key) => {
    evicted += 1;
    const at = now();
    if (at - last < EVICTION_LOG_INTERVAL_MS) return;
    last = at;
    log.warn(
      { evicted, kind: kindOf(key), maxBytes: options.maxBytes },
      `shared.backend "none": records evicted before they expired to keep this process's store within shared.maxMemoryBytes (${evicted} since the last line); a retry of an evicted idempotency key runs again. Raise shared.maxMemoryBytes or set shared.backend: postgres`,
    );
    evicted = 0;
  };
}

/**
 * The kind of the entries standing for rate-limit counts (`rate:<counter>:<key>`): each counter
 * key the memory limiter holds has one, living as long as its window, so the counts of a flood of
 * distinct keys (ips) take their share of the bound; evicting one forgets that key's count.
 */
const RATE_KIND = 'rate';

function forgetCount(limiters: Map<string, RateLimiterMemory[]>, entryKey: string): void {
  const rest = entryKey.slice(RATE_KIND.length + 1);
  const colon = rest.indexOf(':');
  for (const limiter of limiters.get(rest.slice(0, colon)) ?? []) void limiter.delete(rest.slice(colon + 1));
}

export interface MemoryStoreDeps {
  now?: () => number;
  logFailure: FailureLog;
  /** Where the bound's evictions are logged (none when absent). */
  log?: Logger;
  /** `shared.maxMemoryBytes`: most bytes the entries hold (unbounded when absent). */
  maxBytes?: number;
  /** The process's metrics of the bound (`app_shared_memory_bytes`, `app_shared_memory_evictions_total`). */
  watch?: MemoryWatch;
}

/**
 * The backend without a shared store (`shared.backend: none`): entries and counters live in
 * this process, so limits apply per process. Never fails. Entries and the counters' keys are
 * bounded together by `maxBytes` (evicting the oldest of the largest kind); a counter's key
 * also goes at the end of its window.
 */
export function memoryStore(deps: MemoryStoreDeps): SharedStore {
  const warn =
    deps.log && deps.maxBytes !== undefined
      ? evictionWarning(deps.log, { maxBytes: deps.maxBytes, now: deps.now })
      : undefined;
  const limiters = new Map<string, RateLimiterMemory[]>();
  const entries = memoryEntries({
    now: deps.now,
    maxBytes: deps.maxBytes,
    onEvict(key) {
      warn?.(key);
      deps.watch?.evicted(kindOf(key));
      if (kindOf(key) === RATE_KIND) forgetCount(limiters, key);
    },
    onBytes: (bytes) => deps.watch?.bytes(bytes),
  });
  let sweeper: NodeJS.Timeout | undefined;
  return {
    backend: 'memory',
    name: 'shared',
    adapter: 'memory',
    where: 'this process',
    entries,
    logFailure: deps.logFailure,
    counter(options) {
      const limiter = new RateLimiterMemory({
        keyPrefix: options.name,
        points: options.points,
        duration: windowSeconds(options.windowMs),
      });
      const name = encodeURIComponent(options.name); // route counters' names have colons
      limiters.set(name, [...(limiters.get(name) ?? []), limiter]);
      const counter = counterFrom(limiter, options);
      return {
        ...counter,
        async hit(key) {
          const state = await counter.hit(key);
          // the key's count, as an entry living as long as its window: counted against the bound
          await entries.add(`${RATE_KIND}:${name}:${key}`, 0, state.resetMs);
          return state;
        },
      };
    },
    ping: async () => {},
    async start() {
      sweeper ??= setInterval(() => entries.purge(), SWEEP_MS).unref();
    },
    async stop() {
      clearInterval(sweeper);
      sweeper = undefined;
    },
  };
}

import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { Logger } from '../log/logger.ts';
import { counterFrom, windowSeconds } from './counter.ts';
import type { EntryOptions, FailureLog, Json, KeyValueStore, SharedStore } from './types.ts';

/** How often expired entries are swept from memory. */
const SWEEP_MS = 60_000;

/** The bound's first eviction is logged at once; later ones at most once in this interval. */
export const EVICTION_LOG_INTERVAL_MS = 60_000;

/**
 * What one entry is counted as besides its key and JSON text: the Map slots, the record around
 * them and the strings' headers. Measured as the heap one entry holds after a full collection less
 * its key and text (`npm run bench:shared-memory`): 170 to 230 bytes for a rate-limit count, a
 * sign-in lockout slot and an idempotency answer alike, so a count of 100 let the store hold up to
 * 1.6 times `shared.maxMemoryBytes` when its entries were small.
 */
export const ENTRY_OVERHEAD_BYTES = 240;

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
  /** {@link EntryOptions.priority}: the lowest gives way first past the bound. */
  priority: number;
  /** The entries of its kind and priority, which it is one of. */
  kind: Kind;
}

/** The entries of one kind and one priority, oldest written first (a Map keeps insertion order). */
interface Kind {
  map: Map<string, Entry>;
  bytes: number;
  /**
   * Where the bound's evictions of this kind have got to: one iterator kept from eviction to
   * eviction. A Map keeps a deleted entry's slot until it is rebuilt, and a new iterator walks
   * every such slot before the first live entry: under a flood at the bound, that walk grew with
   * the store, to hundreds of microseconds a write at 64 MB. The kept iterator passes each slot
   * once (it sees entries written after it was made, and goes on across the Map's rebuilds).
   */
  cursor?: Iterator<[string, Entry]>;
}

export interface MemoryEntriesOptions {
  now?: () => number;
  /** Most bytes all entries together are counted as ({@link entryBytes}); unbounded when absent. */
  maxBytes?: number;
  /** Called for each live entry the bound evicts, with the priority it was written with. */
  onEvict?: (key: string, priority: number) => void;
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
 * always from the lowest priority held ({@link EntryOptions.priority}), and within it from the
 * kind of entry holding the most bytes, oldest written first (expired ones simply go). So a
 * flood of one kind (idempotency answers) evicts its own oldest records and not the few small
 * ones of another (a sign-in lockout's failure slots) while it is the largest; and a flood of
 * entries that refuse nothing (one failed sign-in per email, one hit per ip) never evicts one
 * holding a refusal (a lock, a client at its rate limit): those go only once nothing of a lower
 * priority is left, which takes a flood of entries that cost as many requests each.
 */
export function memoryEntries(options: MemoryEntriesOptions = {}): MemoryEntries {
  const now = options.now ?? Date.now;
  const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
  const entries = new Map<string, Entry>();
  /** Priority → kind → its entries; a kind or a priority with no entry left is dropped. */
  const levels = new Map<number, Map<string, Kind>>();
  let total = 0;
  const remove = (key: string, entry: Entry) => {
    entries.delete(key);
    entry.kind.map.delete(key);
    entry.kind.bytes -= entry.bytes;
    total -= entry.bytes;
    if (entry.kind.map.size === 0) {
      const kinds = levels.get(entry.priority) as Map<string, Kind>;
      kinds.delete(kindOf(key));
      if (kinds.size === 0) levels.delete(entry.priority);
    }
    options.onBytes?.(total);
  };
  const live = (key: string) => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= now()) {
      remove(key, entry);
      return undefined;
    }
    return entry;
  };
  /** The kind holding the most bytes among the entries of the lowest priority. */
  const nextToGo = () => {
    const kinds = levels.get(Math.min(...levels.keys())) as Map<string, Kind>; // total > 0: some entry is held
    let most: Kind | undefined;
    for (const kind of kinds.values()) if (!most || kind.bytes > most.bytes) most = kind;
    return most as Kind;
  };
  /** The oldest entry of `kind` (which holds one), read where the last eviction left off. */
  const oldest = (kind: Kind): [string, Entry] => {
    let step = kind.cursor?.next();
    if (!step || step.done) {
      kind.cursor = kind.map.entries();
      step = kind.cursor.next();
    }
    return step.value as [string, Entry];
  };
  const fit = () => {
    const at = now();
    while (total > maxBytes) {
      const [key, entry] = oldest(nextToGo());
      remove(key, entry);
      if (entry.expiresAt > at) options.onEvict?.(key, entry.priority);
    }
  };
  const write = (key: string, value: Json, ttlMs: number, priority = 0) => {
    const found = entries.get(key);
    if (found) remove(key, found); // written again: the newest of its kind, at its new priority
    let kinds = levels.get(priority);
    if (!kinds) levels.set(priority, (kinds = new Map()));
    let kind = kinds.get(kindOf(key));
    if (!kind) kinds.set(kindOf(key), (kind = { map: new Map(), bytes: 0 }));
    const text = JSON.stringify(value);
    const entry = { text, expiresAt: now() + ttlMs, bytes: entryBytes(key, text), priority, kind };
    entries.set(key, entry);
    kind.map.set(key, entry);
    kind.bytes += entry.bytes;
    total += entry.bytes;
    fit();
    options.onBytes?.(total);
  };
  return {
    async get(key) {
      const entry = live(key);
      return entry ? (JSON.parse(entry.text) as Json) : undefined;
    },
    async set(key, value, ttlMs, entryOptions) {
      write(key, value, ttlMs, entryOptions?.priority);
    },
    async add(key, value, ttlMs, entryOptions) {
      if (live(key)) return false;
      write(key, value, ttlMs, entryOptions?.priority);
      return true;
    },
    async delete(key) {
      const found = entries.get(key);
      if (found) remove(key, found);
    },
    purge() {
      let purged = 0;
      const at = now();
      for (const [key, entry] of entries) {
        if (entry.expiresAt <= at) {
          remove(key, entry);
          purged += 1;
        }
      }
      return purged;
    },
    get size() {
      return entries.size;
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
 * {@link EVICTION_LOG_INTERVAL_MS} saying how many were evicted since the last line, and how many
 * of them held a refusal (a priority above 0). An evicted idempotency key runs its request again
 * on a retry, an evicted lockout slot is a failure forgotten, an evicted lock or count at its
 * limit lifts a refusal early: the operator is told the bound is too small for the traffic.
 */
export function evictionWarning(
  log: Logger,
  options: { maxBytes: number; now?: () => number },
): (key: string, priority?: number) => void {
  const now = options.now ?? Date.now;
  let last = Number.NEGATIVE_INFINITY;
  let evicted = 0;
  let refusing = 0;
  return (key, priority = 0) => {
    evicted += 1;
    if (priority > 0) refusing += 1;
    const at = now();
    if (at - last < EVICTION_LOG_INTERVAL_MS) return;
    last = at;
    const refusals = refusing
      ? `; ${refusing} of them held a refusal (a sign-in lock or failure count, a client at its rate limit), evicted only because nothing else was left`
      : '';
    log.warn(
      { evicted, refusing, kind: kindOf(key), maxBytes: options.maxBytes },
      `shared.backend "none": records evicted before they expired to keep this process's store within shared.maxMemoryBytes (${evicted} since the last line)${refusals}; a retry of an evicted idempotency key runs again. Raise shared.maxMemoryBytes or set shared.backend: postgres`,
    );
    evicted = 0;
    refusing = 0;
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
 * bounded together by `maxBytes` (evicting the oldest of the largest kind among the lowest
 * priority: a key at its limit outranks the keys under theirs); a counter's key also goes at
 * the end of its window.
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
    onEvict(key, priority) {
      warn?.(key, priority);
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
      const atLimit: EntryOptions = { priority: options.points };
      return {
        ...counter,
        async hit(key) {
          const state = await counter.hit(key);
          // the key's count, as an entry living as long as its window: counted against the bound;
          // at its limit it holds a refusal worth the window's points, so plain counts go first
          const entryKey = `${RATE_KIND}:${name}:${key}`;
          if (state.remaining > 0) await entries.add(entryKey, 0, state.resetMs);
          else await entries.set(entryKey, 0, state.resetMs, atLimit);
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

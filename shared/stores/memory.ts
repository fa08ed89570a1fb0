import { RateLimiterMemory } from 'rate-limiter-flexible';
import { counterFrom, windowSeconds } from './counter.ts';
import type { FailureLog, Json, KeyValueStore, SharedStore } from './types.ts';

/** How often expired entries are swept from memory. */
const SWEEP_MS = 60_000;

/**
 * Entries in this process's memory. Values are kept as JSON text, so a caller never shares an
 * object with the store (what a remote backend would give back is a copy too).
 */
export function memoryEntries(
  options: { now?: () => number } = {},
): KeyValueStore & { purge(): number; readonly size: number } {
  const now = options.now ?? Date.now;
  const map = new Map<string, { text: string; expiresAt: number }>();
  const live = (key: string) => {
    const entry = map.get(key);
    if (entry && entry.expiresAt <= now()) {
      map.delete(key);
      return undefined;
    }
    return entry;
  };
  return {
    async get(key) {
      const entry = live(key);
      return entry ? (JSON.parse(entry.text) as Json) : undefined;
    },
    async set(key, value, ttlMs) {
      map.set(key, { text: JSON.stringify(value), expiresAt: now() + ttlMs });
    },
    async add(key, value, ttlMs) {
      if (live(key)) return false;
      map.set(key, { text: JSON.stringify(value), expiresAt: now() + ttlMs });
      return true;
    },
    async delete(key) {
      map.delete(key);
    },
    /** Drops expired entries; returns how many. */
    purge() {
      let purged = 0;
      const at = now();
      for (const [key, entry] of map) {
        if (entry.expiresAt <= at) {
          map.delete(key);
          purged += 1;
        }
      }
      return purged;
    },
    get size() {
      return map.size;
    },
  };
}

/**
 * The backend without a shared store (`shared.backend: none`): entries and counters live in
 * this process, so limits apply per process. Never fails.
 */
export function memoryStore(deps: { now?: () => number; logFailure: FailureLog }): SharedStore {
  const entries = memoryEntries({ now: deps.now });
  let sweeper: NodeJS.Timeout | undefined;
  return {
    backend: 'memory',
    name: 'shared',
    adapter: 'memory',
    where: 'this process',
    entries,
    logFailure: deps.logFailure,
    counter: (options) =>
      counterFrom(
        new RateLimiterMemory({
          keyPrefix: options.name,
          points: options.points,
          duration: windowSeconds(options.windowMs),
        }),
        options,
      ),
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

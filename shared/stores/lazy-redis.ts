/**
 * The Redis backend, loaded only when it is configured: `ioredis` (and the Redis limiter of
 * rate-limiter-flexible) are imported at the store's first use, so a process on the PostgreSQL
 * or in-process backend never loads them. The store answers synchronously like the others;
 * its entries and counters wait for the module the first time.
 */
import { windowSeconds } from './counter.ts';
import type { Counter, CounterOptions, KeyValueStore, SharedStore } from './types.ts';
import type { RedisStoreOptions } from './redis.ts';

export function lazyRedisStore(options: RedisStoreOptions): SharedStore {
  let loading: Promise<SharedStore> | undefined;
  const real = () => (loading ??= import('./redis.ts').then(({ redisStore }) => redisStore(options)));
  const entries: KeyValueStore = {
    get: async (key) => (await real()).entries.get(key),
    set: async (key, value, ttlMs) => (await real()).entries.set(key, value, ttlMs),
    add: async (key, value, ttlMs) => (await real()).entries.add(key, value, ttlMs),
    delete: async (key) => (await real()).entries.delete(key),
  };
  return {
    backend: 'redis',
    name: 'shared',
    adapter: 'redis',
    where: 'redis',
    entries,
    logFailure: options.logFailure,
    counter(counter: CounterOptions): Counter {
      const made = real().then((store) => store.counter(counter));
      made.catch(() => undefined); // a failed import surfaces at the first hit
      return {
        points: counter.points,
        windowMs: windowSeconds(counter.windowMs) * 1000,
        hit: async (key) => (await made).hit(key),
      };
    },
    ping: async () => (await real()).ping(),
    start: async () => (await real()).start(),
    stop: async () => {
      if (loading) await (await loading).stop();
    },
  };
}

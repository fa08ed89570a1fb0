import { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { counterFrom, windowSeconds } from './counter.ts';
import { withTimeout } from './timeout.ts';
import type { FailureLog, Json, KeyValueStore, SharedStore, StoreDeps } from './types.ts';

const ENTRY_PREFIX = 'app:entry:';
const COUNTER_PREFIX = 'app:rl:';

/**
 * Stores `ARGV[1]` with a TTL of `ARGV[2]` ms unless a value whose expiry (the number before
 * `|`) is later than `ARGV[3]` (now) is there. One script, so the check and the set are atomic.
 */
const ADD_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if current then
  local expires = tonumber(string.match(current, '^(%d+)|'))
  if expires and expires > tonumber(ARGV[3]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

/** An entry is stored as `<expiresAt ms>|<JSON>`: Redis expires it, and the caller's clock is honoured too. */
const encode = (value: Json, expiresAt: number) => `${Math.ceil(expiresAt)}|${JSON.stringify(value)}`;
const decode = (text: string | null, now: number): Json | undefined => {
  if (text === null) return undefined;
  const bar = text.indexOf('|');
  if (bar < 0 || Number(text.slice(0, bar)) <= now) return undefined;
  return JSON.parse(text.slice(bar + 1)) as Json;
};
const px = (ttlMs: number) => Math.max(1, Math.ceil(ttlMs));

/** Entries in Redis under `app:entry:<key>`. */
export function redisEntries(client: Redis, options: { now?: () => number; timeoutMs?: number } = {}): KeyValueStore {
  const now = options.now ?? Date.now;
  const timed = <T>(promise: Promise<T>, what: string) => withTimeout(promise, options.timeoutMs ?? 0, `redis ${what}`);
  return {
    async get(key) {
      return decode(await timed(client.get(ENTRY_PREFIX + key), 'get'), now());
    },
    async set(key, value, ttlMs) {
      const at = now();
      await timed(client.set(ENTRY_PREFIX + key, encode(value, at + ttlMs), 'PX', px(ttlMs)), 'set');
    },
    async add(key, value, ttlMs) {
      const at = now();
      const stored = await timed(
        client.eval(ADD_SCRIPT, 1, ENTRY_PREFIX + key, encode(value, at + ttlMs), px(ttlMs), at),
        'add',
      );
      return stored === 1;
    },
    async delete(key) {
      await timed(client.del(ENTRY_PREFIX + key), 'delete');
    },
  };
}

export interface RedisStoreOptions extends StoreDeps {
  url: string;
  /** Longest wait for an answer (`shared.timeout`). */
  timeoutMs: number;
  logFailure: FailureLog;
}

/**
 * The Redis backend (`shared.url`). Commands fail at once while the connection is down (no
 * offline queue) and after `timeoutMs` when Redis does not answer, so a request is refused or
 * served uncounted quickly; the client keeps reconnecting in the background.
 */
export function redisStore(options: RedisStoreOptions): SharedStore & { readonly client: Redis } {
  const { timeoutMs, logFailure } = options;
  const client = new Redis(options.url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: timeoutMs,
    connectTimeout: Math.max(timeoutMs, 1000),
  });
  client.on('error', (error: unknown) => logFailure(error, 'redis connection'));
  const entries = redisEntries(client, { now: options.now, timeoutMs });
  return {
    backend: 'redis',
    name: 'shared',
    adapter: 'redis',
    where: 'redis',
    client,
    entries,
    logFailure,
    counter: (counter) =>
      counterFrom(
        new RateLimiterRedis({
          storeClient: client,
          keyPrefix: COUNTER_PREFIX + counter.name,
          points: counter.points,
          duration: windowSeconds(counter.windowMs),
          rejectIfRedisNotReady: true,
        }),
        { ...counter, timeoutMs },
      ),
    async ping() {
      await withTimeout(client.ping(), timeoutMs, 'redis ping');
    },
    async start() {
      // waits for the first connection up to timeoutMs; a Redis that is down does not stop the boot
      await withTimeout(client.connect(), timeoutMs, 'redis connect').catch((error: unknown) =>
        logFailure(error, 'redis connect'),
      );
    },
    async stop() {
      if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
      else client.disconnect();
    },
  };
}

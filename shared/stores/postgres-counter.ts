import { RateLimiterRes } from 'rate-limiter-flexible';
import type { Sql } from '../db/connect.ts';
import type { ConsumingLimiter } from './counter.ts';

interface CounterRow {
  points: number;
  /** Milliseconds left in the window. */
  ms_left: number;
}

/**
 * A fixed-window counter on the migrated table `app_rate_limits` (migrations/004_shared_store.sql)
 * with the `postgres` driver: one statement per hit adds the point and starts a new window when
 * the old one has ended, and answers the count and the time left. Windows follow the database
 * clock (`now()`), so processes on several machines agree on them. It answers as a
 * rate-limiter-flexible limiter does (`consume` resolving, or rejecting over the limit, with the
 * library's public `RateLimiterRes`), so `counterFrom` serves it like the Redis and in-process
 * limiters; it does not subclass the library (its storage hooks are internal and change between
 * versions).
 */
export function postgresLimiter(
  sql: Sql,
  options: { keyPrefix: string; points: number; duration: number },
): ConsumingLimiter {
  const windowMs = options.duration * 1000;
  return {
    async consume(key: string | number, points = 1) {
      const stored = options.keyPrefix ? `${options.keyPrefix}:${key}` : String(key);
      const [row] = await sql<CounterRow[]>`
        insert into app_rate_limits as r (key, points, expires_at)
        values (${stored}, ${points}, now() + ${windowMs}::float8 * interval '1 millisecond')
        on conflict (key) do update set
          points = case when r.expires_at <= now() then excluded.points else r.points + excluded.points end,
          expires_at = case when r.expires_at <= now() then excluded.expires_at else r.expires_at end
        returning points, greatest(0, extract(epoch from (expires_at - now())) * 1000)::float8 as ms_left`;
      const res = new RateLimiterRes(
        Math.max(options.points - row.points, 0),
        Math.ceil(row.ms_left),
        row.points,
        row.points === points,
      );
      if (row.points > options.points) throw res;
      return res;
    },
  } as ConsumingLimiter;
}

/** Removes ended windows; returns how many. */
export async function purgeCounters(sql: Sql): Promise<number> {
  const result = await sql`delete from app_rate_limits where expires_at <= now()`;
  return result.count;
}

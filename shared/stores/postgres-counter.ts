import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Sql } from '../db/connect.ts';

interface CounterRow {
  points: number;
  /** Milliseconds left in the window; -1: never expires. */
  ms_left: number;
}

/**
 * rate-limiter-flexible's Postgres limiter with its four storage methods written for the
 * `postgres` driver (tagged templates) on the migrated table `app_rate_limits`
 * (migrations/004_shared_store.sql), instead of the `pg` client and a table it creates itself.
 * Windows follow the database clock (`now()`), so processes on several machines agree on them.
 * Everything else (consume, refusals, blocking options) is the library's.
 */
export class PostgresCounterLimiter extends RateLimiterPostgres {
  private readonly sql: Sql;

  constructor(sql: Sql, options: { keyPrefix: string; points: number; duration: number }) {
    // storeType 'pool' + tableCreated: the base class neither inspects the client nor creates a table
    super({ ...options, storeClient: sql, storeType: 'pool', tableName: 'app_rate_limits', tableCreated: true, clearExpiredByTimeout: false });
    this.sql = sql;
  }

  /** Adds `points` to the key's window, starting a new window when the old one has ended (or when `forceExpire`). */
  async _upsert(key: string, points: number, msDuration: number, forceExpire = false): Promise<CounterRow> {
    const ms = msDuration > 0 ? msDuration : null;
    const [row] = await this.sql<CounterRow[]>`
      insert into app_rate_limits as r (key, points, expires_at)
      values (${key}, ${points}, coalesce(now() + ${ms}::float8 * interval '1 millisecond', 'infinity'))
      on conflict (key) do update set
        points = case when r.expires_at <= now() or ${forceExpire}::boolean then excluded.points else r.points + excluded.points end,
        expires_at = case when r.expires_at <= now() or ${forceExpire}::boolean then excluded.expires_at else r.expires_at end
      returning points,
        case when expires_at = 'infinity' then -1
             else greatest(0, extract(epoch from (expires_at - now())) * 1000) end::float8 as ms_left`;
    return row;
  }

  async _get(key: string): Promise<CounterRow | null> {
    const [row] = await this.sql<CounterRow[]>`
      select points,
        case when expires_at = 'infinity' then -1
             else greatest(0, extract(epoch from (expires_at - now())) * 1000) end::float8 as ms_left
      from app_rate_limits where key = ${key} and expires_at > now()`;
    return row ?? null;
  }

  async _delete(key: string): Promise<boolean> {
    const result = await this.sql`delete from app_rate_limits where key = ${key}`;
    return result.count > 0;
  }

  _getRateLimiterRes(_key: string, changedPoints: number, row: CounterRow): RateLimiterRes {
    return new RateLimiterRes(Math.max(this.points - row.points, 0), Math.ceil(row.ms_left), row.points, row.points === changedPoints);
  }
}

/** Removes ended windows; returns how many. */
export async function purgeCounters(sql: Sql): Promise<number> {
  const result = await sql`delete from app_rate_limits where expires_at <= now()`;
  return result.count;
}

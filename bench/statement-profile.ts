/**
 * Where PostgreSQL's time goes (`--profile 1` of bench:delivery): pg_stat_statements over one
 * phase of a benchmark, as time per unit of work (a delivery) for each statement, planning
 * included. The embedded server is started with the module loaded when profiling; a server
 * named by DATABASE_URL must have it in `shared_preload_libraries` already.
 *
 * Times are the statements' elapsed times inside the server, lock waits and waits for a CPU
 * included; nested statements (inside functions) are counted as their own rows as well as in
 * their caller's. Profiling costs a little on every statement: take throughput figures from
 * runs without it.
 */
import postgres from 'postgres';

/** The server settings a profiled embedded server starts with. */
export const PROFILE_SETTINGS = [
  'shared_preload_libraries=pg_stat_statements',
  'pg_stat_statements.track=all',
  'pg_stat_statements.track_planning=on',
];

/** One statement's share of a phase. */
export interface StatementShare {
  calls: number;
  rows: number;
  /** Milliseconds executing and planning, per unit of work. */
  execMs: number;
  planMs: number;
  /** WAL bytes written and buffers touched (hit or read), per unit of work: counts, not times, so a busy machine does not move them. */
  walBytes: number;
  blocks: number;
  /** The statement, whitespace folded, cut to `width` characters. */
  text: string;
}

/** The profile of one server: `reset` before a phase, `top` after it. */
export interface StatementProfile {
  reset(): Promise<void>;
  top(units: number, limit?: number, width?: number): Promise<StatementShare[]>;
  /** WAL bytes the whole server wrote since `reset`, per unit of work (commits included). */
  walPerUnit(units: number): Promise<number>;
  close(): Promise<void>;
}

/** Opens the profile on the server of `adminUrl` (the module's functions live in its `postgres` database). */
export async function openStatementProfile(adminUrl: string): Promise<StatementProfile> {
  const sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await sql`create extension if not exists pg_stat_statements`;
    await sql`select 1 from pg_stat_statements limit 1`;
  } catch (error) {
    await sql.end();
    throw new Error(
      `--profile needs pg_stat_statements loaded by the server (shared_preload_libraries): ${(error as Error).message}`,
    );
  }
  return {
    async reset() {
      await sql`select pg_stat_statements_reset()`;
      await sql`select pg_stat_reset_shared('wal')`;
    },
    async walPerUnit(units) {
      const [row] = await sql<{ bytes: string }[]>`select wal_bytes::text as bytes from pg_stat_wal`;
      return Number(row.bytes) / units;
    },
    async top(units, limit = 12, width = 140) {
      const rows = await sql<
        { calls: string; rows: string; exec: number; plan: number; wal: string; blocks: string; text: string }[]
      >`
        select calls, rows, total_exec_time as exec, total_plan_time as plan, wal_bytes::text as wal,
               (shared_blks_hit + shared_blks_read)::text as blocks,
               left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), ${width}) as text
          from pg_stat_statements
         where query not like '%pg_stat_statements%'
         order by total_exec_time + total_plan_time desc
         limit ${limit}`;
      return rows.map((row) => ({
        calls: Number(row.calls),
        rows: Number(row.rows),
        execMs: row.exec / units,
        planMs: row.plan / units,
        walBytes: Number(row.wal) / units,
        blocks: Number(row.blocks) / units,
        text: row.text,
      }));
    },
    close: () => sql.end(),
  };
}

/** The profile as lines: microseconds per unit executing + planning, calls, rows, statement. */
export function profileLines(shares: readonly StatementShare[], unit: string): string[] {
  const us = (ms: number) => (ms * 1000).toFixed(1).padStart(7);
  return [
    `   µs/${unit} (exec + plan)    calls     rows  WAL B/${unit} blocks/${unit}  statement`,
    ...shares.map(
      (s) =>
        `   ${us(s.execMs + s.planMs)} (${us(s.execMs)} + ${us(s.planMs)}) ${String(s.calls).padStart(8)} ${String(s.rows).padStart(8)} ${s.walBytes.toFixed(0).padStart(9)} ${s.blocks.toFixed(1).padStart(11)}  ${s.text}`,
    ),
  ];
}

/**
 * How many worker processes are alive, as the database sees them: those whose heartbeat
 * (`app_worker_heartbeats`, written every `worker.heartbeat` by each pool of a worker process)
 * is fresher than `worker.staleAfter`, the age past which the workers themselves presume a pool
 * dead. Counted by process (host and pid), not by pool, so that a worker's second pool does not
 * count twice. Read by the web process too, so that "no worker alive" shows on a scrape of the web
 * processes alone, while no worker can be scraped.
 */
import type { Sql } from '../db/connect.ts';

/** Worker processes with a heartbeat fresher than `staleAfterMs`. */
export async function liveWorkers(sql: Sql, staleAfterMs: number): Promise<number> {
  const [row] = await sql<{ alive: number }[]>`
    select count(distinct (host, pid))::int as alive
      from app_worker_heartbeats
     where seen_at > now() - ${staleAfterMs}::int * interval '1 millisecond'`;
  return row.alive;
}

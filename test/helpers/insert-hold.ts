/**
 * Holding a write at a chosen point, to drive an interleaving with other requests without timing
 * it: a trigger of the test's own makes every insert into a table wait on an advisory lock that
 * the test holds until it releases it, and the test can see when a statement waits there or on a
 * row another transaction holds.
 */
import type { Sql } from '../../shared/db/connect.ts';
import { transaction } from '../../shared/db/transaction.ts';
import { eventually } from './poll.ts';

let holds = 0;

export interface InsertHold {
  /** Lets the inserts held so far (and later ones) go on. */
  release(): Promise<void>;
  /** Removes the trigger (the lock released first). */
  remove(): Promise<void>;
}

/** Makes every insert into `table` wait until the hold is released. */
export async function holdInserts(sql: Sql, table: string): Promise<InsertHold> {
  holds += 1;
  const key = 727_000 + holds;
  const name = `test_hold_${table}_${holds}`;
  await sql.unsafe(`
    create or replace function ${name}() returns trigger language plpgsql as $$
    begin perform pg_advisory_xact_lock(${key}); return new; end $$;
    create trigger ${name} before insert on ${table} for each row execute function ${name}();`);
  let letGo!: () => void;
  const released = new Promise<void>((resolve) => {
    letGo = resolve;
  });
  let locked!: () => void;
  const holding = new Promise<void>((resolve) => {
    locked = resolve;
  });
  const held = transaction(sql, async (tx) => {
    await tx`select pg_advisory_xact_lock(${key})`;
    locked();
    await released;
  });
  await holding;
  const release = async () => {
    letGo();
    await held;
  };
  return {
    release,
    async remove() {
      await release();
      await sql.unsafe(`drop trigger if exists ${name} on ${table}; drop function if exists ${name}()`);
    },
  };
}

/** How many backends of this database wait on a lock of kind `events` ('advisory'; a row: 'transactionid', 'tuple'). */
export async function waitingOn(sql: Sql, events: string[]): Promise<number> {
  const [{ n }] = await sql<{ n: number }[]>`
    select count(*)::int as n from pg_stat_activity
     where datname = current_database() and wait_event_type = 'Lock' and wait_event = any(${events})`;
  return n;
}

/**
 * Runs `request` with its insert into `table` held, and `meanwhile` while it waits there; lets
 * the insert go once `meanwhile` has finished or waits on a row `request` holds (the two never
 * both wait on the test); answers what `request` answered, once `meanwhile` has finished too.
 */
export async function meanwhileInsert<T>(
  sql: Sql,
  table: string,
  request: () => Promise<T>,
  meanwhile: () => Promise<unknown>,
): Promise<T> {
  const hold = await holdInserts(sql, table);
  const answered = request();
  await eventually(() => waitingOn(sql, ['advisory']), 10_000, `the insert into ${table} to wait`);
  let finished = false;
  const running = meanwhile().then(() => {
    finished = true;
  });
  await eventually(
    async () => finished || (await waitingOn(sql, ['transactionid', 'tuple'])) > 0,
    10_000,
    'the concurrent change to finish or wait for the held insert',
  );
  await hold.remove();
  const answer = await answered;
  await running;
  return answer;
}

/**
 * A table held by a transaction of the test (ACCESS EXCLUSIVE), so that the statements a test
 * sends to it wait on the lock until the test lets go.
 */
import postgres from 'postgres';

export interface TableLock {
  /** Ends the holding transaction and its connection. */
  release(): Promise<void>;
}

/** Locks `table` of the database at `url` on a connection of its own; resolves once the lock is held. */
export async function lockTable(url: string, table: string): Promise<TableLock> {
  const blocker = postgres(url, { max: 1, onnotice: () => {} });
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held!: () => void;
  const holding = new Promise<void>((resolve) => (held = resolve));
  const locked = blocker.begin(async (tx) => {
    await tx`lock table ${tx(table)} in access exclusive mode`;
    held();
    await released;
  });
  await Promise.race([holding, locked]);
  return {
    async release() {
      release();
      await locked;
      await blocker.end();
    },
  };
}

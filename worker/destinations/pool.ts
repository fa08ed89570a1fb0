/**
 * The connections of one broker sender, one per destination key (host, port, credentials and
 * whatever else makes a connection distinct), shared by every delivery to it:
 *
 * - opened on first use; concurrent first uses share one opening;
 * - closed after `idleMs` without use;
 * - dropped (and closed) when a sender reports it broken, so the next attempt opens a new one:
 *   a broker restart costs failed attempts, never a stuck worker;
 * - an opening that fails is not kept: the next attempt tries again.
 */

/** A pool of connections of type `C`, keyed by destination. */
export interface ConnectionPool<C> {
  /** The open connection for `key`, opening it with `open` when there is none. */
  get(key: string, open: () => Promise<C>): Promise<C>;
  /** Drops `connection` for `key` (when it is the pooled one) and closes it. */
  discard(key: string, connection: C): void;
  /** Connections open now (for tests and metrics). */
  readonly size: number;
  /** Closes every connection; later `get`s open new ones. */
  close(): Promise<void>;
}

interface Entry<C> {
  connection: Promise<C>;
  /** The connection once opened. */
  value?: C;
  timer: NodeJS.Timeout | undefined;
}

/** A pool that closes connections with `closeConnection` (errors while closing are ignored). */
export function createConnectionPool<C>(options: {
  idleMs: number;
  closeConnection: (connection: C) => Promise<void> | void;
}): ConnectionPool<C> {
  const entries = new Map<string, Entry<C>>();
  const quietly = (connection: C) => {
    try {
      Promise.resolve(options.closeConnection(connection)).catch(() => undefined);
    } catch {
      // closing a broken connection may throw; it is gone either way
    }
  };
  const arm = (key: string, entry: Entry<C>) => {
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      if (entries.get(key) !== entry) return;
      entries.delete(key);
      entry.connection.then(quietly, () => undefined);
    }, options.idleMs);
    entry.timer.unref();
  };
  return {
    get(key, open) {
      let entry = entries.get(key);
      if (entry === undefined) {
        const created: Entry<C> = { connection: open(), timer: undefined };
        entry = created;
        entries.set(key, created);
        created.connection.then(
          (value) => {
            created.value = value;
          },
          () => {
            if (entries.get(key) === created) {
              entries.delete(key);
              if (created.timer !== undefined) clearTimeout(created.timer);
            }
          },
        );
      }
      arm(key, entry);
      return entry.connection;
    },
    discard(key, connection) {
      const entry = entries.get(key);
      if (entry !== undefined && entry.value === connection) {
        entries.delete(key);
        if (entry.timer !== undefined) clearTimeout(entry.timer);
      }
      quietly(connection);
    },
    get size() {
      return entries.size;
    },
    async close() {
      const all = [...entries.values()];
      entries.clear();
      await Promise.all(
        all.map(async (entry) => {
          if (entry.timer !== undefined) clearTimeout(entry.timer);
          const connection = await entry.connection.catch(() => undefined);
          if (connection !== undefined)
            await Promise.resolve(options.closeConnection(connection)).catch(() => undefined);
        }),
      );
    },
  };
}

/**
 * The disk endpoint store (`adapter: disk`, `path`: a directory): the endpoint table as one JSON
 * file, `<path>/<table>.json`, for deployments without a database of their own for endpoints
 * (one machine; web, worker and CLI processes sharing the directory).
 *
 * Layout: one file for the whole table, not one file per endpoint. What is asked of the store
 * most is reading many records at once (`subscribers` at every emit, `list`), and a single file
 * answers those from one read; a process keeps the parsed file and asks the file system only
 * whether it changed (one `stat`), so reads cost almost nothing while nobody writes. A single
 * file also makes every write one atomic step: the file is whole before and after, never half of
 * a change, and a reader never needs the lock. The cost: every write rewrites (and fsyncs) the
 * whole table and every other process parses it all again at its next read, so both grow with
 * the number of endpoints, and all writes of a table take turns on one lock. With endpoints of
 * about 800 bytes, measured on a small two-core machine: 1,000 endpoints (0.8 MB) cost 7 to 14 ms
 * a write, 5 ms the first read after a change, 0.1 to 0.5 ms a read of an unchanged file; 10,000
 * (8 MB) cost 50 to 80 ms, 45 ms and under 1 ms. Endpoints change rarely (an operator or an API
 * call) and are read at every emit, so this suits tables of up to some thousands of endpoints; a
 * larger table belongs in a database adapter. One file per endpoint would make a write cost the
 * same at any size, but every listing and every emit a read of one file per endpoint.
 *
 * Writes: every change is a read-modify-write under a lock shared by every process on the
 * machine (proper-lockfile: a directory `<table>.lock` made with mkdir, its mtime refreshed while
 * held, taken over once it is older than {@link LOCK_STALE_MS}, so a process killed while holding
 * it delays other writers by at most that long). The new file is written whole to a temporary
 * file beside it, fsynced and renamed over the old one (write-file-atomic), then the directory is
 * fsynced so the rename survives a power cut: a process killed at any point leaves either the old
 * file or the new one, plus perhaps a temporary file that the next writer removes.
 *
 * Reads take no lock: a rename replaces the file at once, so a reader sees one whole version.
 * The cached parse is keyed on the file's inode, and the process keeps that inode open, so the
 * number cannot be reused by a later version while it is cached: a `stat` showing the same inode
 * (and size and mtime) proves the cache is the file's current content. The file must only be
 * replaced, never edited in place (an editor that saves in place changes size or mtime, which
 * also invalidates the cache).
 *
 * Dates are ISO 8601 strings in the file and `Date`s in records. The file holds one endpoint per
 * line, so it stays readable and diffs well.
 */
import { randomInt } from 'node:crypto';
import { constants, type BigIntStats } from 'node:fs';
import { access, mkdir, open, readdir, rm, stat, type FileHandle } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { lock } from 'proper-lockfile';
import writeFileAtomic from 'write-file-atomic';
import type {
  EndpointStore,
  StoreContext,
  StoredEndpoint,
  StoredEndpointPage,
  StoredEndpointQuery,
  StoredOrdering,
  SubscriberEndpoint,
} from './types.ts';
import type { SigningScheme } from '../signing.ts';
import { STORE_TIME_LIMIT_MS, StoreNotInstalledError, StoreUnusableError } from './guard.ts';
import { pageInMemory } from './paging.ts';
import { type SecretJson, secretsFromJson, secretsToJson } from './secrets-json.ts';

/**
 * A writer waits for the lock at most this long, then fails with the lock's `ELOCKED` (which the
 * guard answers as 503, come back later): a second less than the guard's limit of a call, so a
 * write never lands after its caller was told it failed (the core would not know of it).
 */
const LOCK_WAIT_MS = STORE_TIME_LIMIT_MS - 1_000;
/**
 * A lock whose mtime has not been refreshed for this long belongs to a dead process and is taken
 * over: shorter than LOCK_WAIT_MS, so a writer that finds the lock of a killed process gets it
 * within its wait. A live holder refreshes it every LOCK_UPDATE_MS, and only loses it if its
 * event loop stalls for this long; then its write is refused (see `locked`).
 */
export const LOCK_STALE_MS = 3_000;
/** How often a holder refreshes its lock's mtime (proper-lockfile's minimum). */
const LOCK_UPDATE_MS = 1_000;
/** The file's format, so that a later layout can tell an old file from its own. */
const FORMAT = 1;
/** Table names become file names: letters, digits, `_` and `-` only, so no name reaches outside the directory. */
const TABLE_NAME = /^[A-Za-z0-9_-]{1,128}$/;

/** Where a table's files are: the data, its lock, and the prefix of write-file-atomic's temporary files. */
export interface DiskPaths {
  directory: string;
  file: string;
  lock: string;
  /** A temporary file is `<file>.<hex>`. */
  temporaryPrefix: string;
}

export function diskPaths(directory: string, table: string): DiskPaths {
  if (!TABLE_NAME.test(table))
    throw new Error(`disk store: table name ${JSON.stringify(table)} must be 1 to 128 letters, digits, _ or -`);
  const dir = resolve(directory);
  const file = join(dir, `${table}.json`);
  return { directory: dir, file, lock: join(dir, `${table}.lock`), temporaryPrefix: `${table}.json.` };
}

/** An endpoint as the file holds it: dates as ISO strings. */
interface DiskEndpoint {
  id: string;
  url: string;
  events: string[];
  /** Absent in a file written before subscription filters: none. */
  filter?: Record<string, unknown> | null;
  owner: string | null;
  description: string | null;
  headers: Record<string, string>;
  secrets: SecretJson[];
  signing: SigningScheme;
  rateLimit: number | null;
  ordering: StoredOrdering;
  disabledAt: string | null;
  disabledReason: string | null;
  enabledAt: string | null;
  createdAt: string;
  updatedAt: string;
  version: number;
}

const iso = (date: Date | null): string | null => (date === null ? null : date.toISOString());
const dateOf = (text: string | null): Date | null => (text === null ? null : new Date(text));

function toDisk(record: StoredEndpoint): DiskEndpoint {
  return {
    id: record.id,
    url: record.url,
    events: [...record.events],
    filter: record.filter === null ? null : structuredClone(record.filter),
    owner: record.owner,
    description: record.description,
    headers: { ...record.headers },
    secrets: secretsToJson(record.secrets),
    signing: record.signing,
    rateLimit: record.rateLimit,
    ordering: record.ordering,
    disabledAt: iso(record.disabledAt),
    disabledReason: record.disabledReason,
    enabledAt: iso(record.enabledAt),
    createdAt: record.createdAt.toISOString(),
    updatedAt: record.updatedAt.toISOString(),
    version: record.version,
  };
}

/** A new record each time: the cached rows are never handed out. */
function fromDisk(row: DiskEndpoint): StoredEndpoint {
  return {
    id: row.id,
    url: row.url,
    events: [...row.events],
    filter: row.filter === undefined || row.filter === null ? null : structuredClone(row.filter),
    owner: row.owner,
    description: row.description,
    headers: { ...row.headers },
    secrets: secretsFromJson(row.secrets),
    signing: row.signing,
    rateLimit: row.rateLimit,
    ordering: row.ordering,
    disabledAt: dateOf(row.disabledAt),
    disabledReason: row.disabledReason,
    enabledAt: dateOf(row.enabledAt),
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
    version: row.version,
  };
}

/** Creation order: `createdAt`, then `id` (ISO strings of one format sort as their times). */
function creationOrder(a: DiskEndpoint, b: DiskEndpoint): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The file's text: one endpoint per line, in creation order. */
function serialize(rows: Iterable<DiskEndpoint>): string {
  const lines = [...rows].sort(creationOrder).map((row) => JSON.stringify(row));
  return `{"format":${FORMAT},"endpoints":[\n${lines.join(',\n')}\n]}\n`;
}

function parse(text: string, file: string): Map<string, DiskEndpoint> {
  const data = JSON.parse(text) as { format?: unknown; endpoints?: unknown };
  if (data?.format !== FORMAT || !Array.isArray(data.endpoints))
    throw new Error(`disk store: ${file} is not an endpoint table of format ${FORMAT}`);
  return new Map((data.endpoints as DiskEndpoint[]).map((row) => [row.id, row]));
}

/** One parsed version of the file, with the open handle that keeps its inode from being reused. */
interface Snapshot {
  handle: FileHandle;
  dev: bigint;
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  rows: Map<string, DiskEndpoint>;
}

/** `rows` as the content of the file open on `handle`, whose own stat is `held`. */
const snapshotOf = (handle: FileHandle, held: BigIntStats, rows: Map<string, DiskEndpoint>): Snapshot => ({
  handle,
  dev: held.dev,
  ino: held.ino,
  size: held.size,
  mtimeNs: held.mtimeNs,
  rows,
});

/** Whether `now` (a stat of the path) is still the file `snapshot` holds: same inode, size and mtime. */
const isSameFile = (snapshot: Snapshot, now: BigIntStats): boolean =>
  snapshot.dev === now.dev &&
  snapshot.ino === now.ino &&
  snapshot.size === now.size &&
  snapshot.mtimeNs === now.mtimeNs;

/**
 * Writers of one lock in this process take turns here before they take the file lock, so that
 * they queue instead of polling the lock directory against each other.
 */
const localQueues = new Map<string, Promise<unknown>>();

function notInstalled(paths: DiskPaths, error: unknown): Error {
  return new StoreNotInstalledError(`disk store: ${paths.file} does not exist; install the store first`, {
    cause: error,
  });
}

/**
 * The error of a `path` that is not a directory (a file in its place or on the way to it): 503
 * `APP_STORE_UNAVAILABLE` saying so (guard.ts), at open and at any call should it become one,
 * rather than the file system's ENOTDIR as a 500.
 */
function notADirectory(paths: DiskPaths, error?: unknown): Error {
  return new StoreUnusableError(`disk store: ${paths.directory} is not a directory`, 'its path is not a directory', {
    cause: error,
  });
}

/** Whether `promise` settles before `deadline` (a `performance.now()` time). */
async function settlesBefore(promise: Promise<unknown>, deadline: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, deadline - performance.now()));
  });
  try {
    return await Promise.race([promise.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

const isCode = (error: unknown, code: string): boolean => (error as { code?: unknown } | null)?.code === code;

/** Refuses a path that names something other than a directory; one that does not exist yet is install's to make. */
async function checkDirectory(paths: DiskPaths): Promise<void> {
  const found = await stat(paths.directory).catch((error: unknown) => {
    if (isCode(error, 'ENOENT')) return undefined;
    throw isCode(error, 'ENOTDIR') ? notADirectory(paths, error) : error;
  });
  if (found !== undefined && !found.isDirectory()) throw notADirectory(paths);
}

/** `error` as the store says it: a missing file is a store not installed, a path through a file one not a directory. */
function storeError(paths: DiskPaths, error: unknown): unknown {
  if (isCode(error, 'ENOENT')) return notInstalled(paths, error);
  if (isCode(error, 'ENOTDIR')) return notADirectory(paths, error);
  return error;
}

export async function openStore(context: StoreContext): Promise<EndpointStore> {
  if (!context.options.path) throw new Error(`store ${context.name}: the disk adapter needs a path (a directory)`);
  const paths = diskPaths(context.options.path, context.table);
  await checkDirectory(paths);
  let cache: Snapshot | undefined;
  let closed = false;

  async function replaceCache(next: Snapshot): Promise<void> {
    // a read that ends after close() keeps nothing open
    if (closed) return next.handle.close();
    const previous = cache;
    cache = next;
    if (previous && previous.handle !== next.handle) await previous.handle.close().catch(() => undefined);
  }

  /** The file's current rows: the cache when the file is still the cached inode, else a fresh read. */
  async function rows(): Promise<Map<string, DiskEndpoint>> {
    if (closed) throw new Error(`disk store ${context.name} is closed`);
    let now: BigIntStats;
    try {
      now = await stat(paths.file, { bigint: true });
    } catch (error) {
      throw storeError(paths, error);
    }
    if (cache && isSameFile(cache, now)) return cache.rows;
    let handle: FileHandle;
    try {
      handle = await open(paths.file, 'r');
    } catch (error) {
      throw storeError(paths, error);
    }
    try {
      // the handle's own stat: the rows below are this inode's, whatever the path names meanwhile
      const held = await handle.stat({ bigint: true });
      const parsed = parse(await handle.readFile('utf8'), paths.file);
      await replaceCache(snapshotOf(handle, held, parsed));
      return parsed;
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
  }

  /**
   * Caches the rows this process just wrote, so that its next read does not parse them again.
   * Called under the lock, where the file is still the version just renamed into place.
   */
  async function keepWritten(written: Map<string, DiskEndpoint>): Promise<void> {
    const handle = await open(paths.file, 'r');
    try {
      await replaceCache(snapshotOf(handle, await handle.stat({ bigint: true }), written));
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
  }

  /**
   * Removes temporary files of writers killed before their rename. Only called under the lock,
   * where no live writer of this table has one: a writer stalled for longer than
   * {@link LOCK_STALE_MS} has lost its lock, and if its temporary file goes its write fails.
   */
  async function sweepTemporaryFiles(): Promise<void> {
    for (const name of await readdir(paths.directory)) {
      if (!name.startsWith(paths.temporaryPrefix)) continue;
      if (!/^[0-9a-f]+$/.test(name.slice(paths.temporaryPrefix.length))) continue;
      await rm(join(paths.directory, name), { force: true });
    }
  }

  /** Flushes the directory entry of a rename to disk (where the platform allows opening a directory). */
  async function syncDirectory(): Promise<void> {
    let handle: FileHandle | undefined;
    try {
      handle = await open(paths.directory, 'r');
      await handle.sync();
    } catch (error) {
      if (!isCode(error, 'EISDIR') && !isCode(error, 'EPERM') && !isCode(error, 'EINVAL')) throw error;
    } finally {
      await handle?.close();
    }
  }

  /**
   * Runs `body` holding the table's lock: first this process's queue, then the lock directory
   * every process shares (retried with a short random back-off), both within one
   * {@link LOCK_WAIT_MS} from the call.
   */
  async function locked<T>(
    body: (commit: (rows: Map<string, DiskEndpoint>) => Promise<void>) => Promise<T>,
  ): Promise<T> {
    const deadline = performance.now() + LOCK_WAIT_MS;
    const before = localQueues.get(paths.lock) ?? Promise.resolve();
    let leave!: () => void;
    const mine = new Promise<void>((resolve) => (leave = resolve));
    const queue = before.then(() => mine);
    localQueues.set(paths.lock, queue);
    try {
      if (!(await settlesBefore(before, deadline))) throw heldTooLong();
      let compromised: Error | undefined;
      const release = await acquire(deadline, (error) => (compromised = error));
      try {
        return await body(async (next) => {
          // a holder stalled past the stale time may have been taken over: it must not write then
          if (compromised) throw new Error(`disk store: lost the lock of ${paths.file}`, { cause: compromised });
          await writeFileAtomic(paths.file, serialize(next.values()), { fsync: true });
          await syncDirectory();
          await sweepTemporaryFiles();
          // the write is done: failing to cache it only costs the next read a parse
          await keepWritten(next).catch(() => undefined);
        });
      } finally {
        await release().catch(() => undefined);
      }
    } finally {
      leave();
      if (localQueues.get(paths.lock) === queue) localQueues.delete(paths.lock);
    }
  }

  async function acquire(deadline: number, onCompromised: (error: Error) => void): Promise<() => Promise<void>> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await lock(paths.file, {
          lockfilePath: paths.lock,
          realpath: false,
          stale: LOCK_STALE_MS,
          update: LOCK_UPDATE_MS,
          retries: 0,
          onCompromised,
        });
      } catch (error) {
        if (!isCode(error, 'ELOCKED')) throw storeError(paths, error);
        if (performance.now() > deadline) throw heldTooLong(error);
        // short and random, so that waiting writers do not retry in step
        await sleep(randomInt(1, Math.min(2 + attempt * 2, 50)));
      }
    }
  }

  /** The error of a writer that did not get the lock within LOCK_WAIT_MS: `ELOCKED`, as the lock's own. */
  function heldTooLong(cause?: unknown): Error {
    return Object.assign(new Error(`disk store: ${paths.lock} stayed locked for ${LOCK_WAIT_MS} ms`), {
      code: 'ELOCKED',
      cause,
    });
  }

  /** Reads the rows under the lock and writes back the rows `mutate` answers (nothing when it answers none). */
  async function change<T>(
    mutate: (rows: Map<string, DiskEndpoint>) => { rows?: Map<string, DiskEndpoint>; answer: T },
  ): Promise<T> {
    return locked(async (commit) => {
      const current = await rows();
      const { rows: next, answer } = mutate(new Map(current));
      if (next) await commit(next);
      return answer;
    });
  }

  function matches(row: DiskEndpoint, query: StoredEndpointQuery): boolean {
    if (query.owner !== undefined && row.owner !== query.owner) return false;
    if (query.enabled !== undefined && (row.disabledAt === null) !== query.enabled) return false;
    if (query.patterns !== undefined && !row.events.some((pattern) => query.patterns!.includes(pattern))) return false;
    return true;
  }

  return {
    name: context.name,
    adapter: 'disk',

    async install() {
      await checkDirectory(paths);
      await mkdir(paths.directory, { recursive: true }).catch((error: unknown) => {
        throw storeError(paths, error);
      });
      await locked(async (commit) => {
        const exists = await access(paths.file, constants.F_OK).then(
          () => true,
          (error: unknown) => {
            if (isCode(error, 'ENOENT')) return false;
            throw error;
          },
        );
        if (!exists) return commit(new Map());
        // a file that does not parse stops the install here: it is never replaced by an empty one
        await rows();
        await sweepTemporaryFiles();
      });
    },

    async ping() {
      await access(paths.directory, constants.R_OK | constants.W_OK);
      await rows();
    },

    async close() {
      closed = true;
      const last = cache;
      cache = undefined;
      await last?.handle.close().catch(() => undefined);
    },

    async get(id) {
      const row = (await rows()).get(id);
      return row ? fromDisk(row) : null;
    },

    async getMany(ids) {
      const all = await rows();
      const found: StoredEndpoint[] = [];
      for (const id of new Set(ids)) {
        const row = all.get(id);
        if (row) found.push(fromDisk(row));
      }
      return found;
    },

    async list(query): Promise<StoredEndpointPage> {
      const matched = [...(await rows()).values()].filter((row) => matches(row, query)).sort(creationOrder);
      return pageInMemory(matched, query, fromDisk);
    },

    async subscribers(owner): Promise<SubscriberEndpoint[]> {
      return [...(await rows()).values()]
        .filter((row) => row.owner === owner && row.disabledAt === null)
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .map((row) => ({
          id: row.id,
          events: [...row.events],
          filter: row.filter === undefined || row.filter === null ? null : structuredClone(row.filter),
        }));
    },

    async insert(endpoint) {
      const row = toDisk(endpoint);
      await change((all) => {
        if (all.has(row.id)) throw new Error(`disk store: endpoint ${row.id} already exists`);
        all.set(row.id, row);
        return { rows: all, answer: undefined };
      });
    },

    async update(endpoint, expectedVersion) {
      const row = toDisk(endpoint);
      return change((all) => {
        if (all.get(row.id)?.version !== expectedVersion) return { answer: false };
        all.set(row.id, row);
        return { rows: all, answer: true };
      });
    },

    async delete(id) {
      return change((all) => (all.delete(id) ? { rows: all, answer: true } : { answer: false }));
    },
  };
}

/**
 * The disk endpoint store (shared/webhooks/endpoint-stores/disk.ts) on real files in a fresh
 * temporary directory: the shared contract, then what only a store on files must survive: a
 * writer killed with SIGKILL in the middle of its writes (the file still reads, and holds every
 * write that was answered), and a lock left behind by a killed process (taken over, so the next
 * writer waits only until the lock is stale).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { watch } from 'node:fs';
import { mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { diskPaths, LOCK_STALE_MS, openStore } from '../../../../shared/webhooks/endpoint-stores/disk.ts';
import { isStoreUnreachable, STORE_TIME_LIMIT_MS } from '../../../../shared/webhooks/endpoint-stores/guard.ts';
import type { EndpointStore, StoreContext, StoredEndpoint } from '../../../../shared/webhooks/endpoint-stores/types.ts';
import { eventually } from '../../../helpers/poll.ts';
import { spawnNode, type Spawned } from '../../../helpers/processes.ts';
import { describeEndpointStoreContract, makeEndpoint } from './contract.ts';

const directory = await mkdtemp(join(tmpdir(), 'app-disk-store-'));
after(() => rm(directory, { recursive: true, force: true }));

const contextOf = (table: string): StoreContext => ({
  name: 'default',
  options: { adapter: 'disk', path: directory },
  table,
});

describeEndpointStoreContract('disk', (table) => openStore(contextOf(table)), {
  child: (table) => ({ context: contextOf(table) }),
  // a file written before filters: its lines have no `filter` key (replaced whole, as a writer does)
  withoutFilters: async (table) => {
    const file = join(directory, `${table}.json`);
    const data = JSON.parse(await readFile(file, 'utf8')) as { endpoints: Record<string, unknown>[] };
    for (const row of data.endpoints) delete row.filter;
    await writeFile(`${file}.old`, JSON.stringify(data));
    await rename(`${file}.old`, file);
  },
});

const DISK_MODULE = new URL('../../../../shared/webhooks/endpoint-stores/disk.ts', import.meta.url).href;

/** Runs `code` (an ES module) in a plain child node process, the store's context in STORE_CONTEXT. */
function runChild(code: string, context: StoreContext): Spawned {
  return spawnNode('--input-type=module', { NODE_TEST_CONTEXT: undefined, STORE_CONTEXT: JSON.stringify(context) }, [
    '-e',
    code,
  ]);
}

/** The description of each endpoint the writer inserts: large, so that each rewrite of the file takes a while. */
const BULK = 'x'.repeat(50_000);

/** Inserts endpoints of owner `k` in a loop, each 50 kB, printing `COMMITTED <id>` once an insert is answered. */
const WRITER = `
const { openStore } = await import(${JSON.stringify(DISK_MODULE)});
const store = await openStore(JSON.parse(process.env.STORE_CONTEXT));
const prefix = 'ep_kill_' + process.pid + '_';
for (let i = 0; ; i++) {
  const id = prefix + String(i).padStart(6, '0');
  const at = new Date();
  const record = {
    id, url: 'https://receiver.example/' + i, events: ['a.*'], filter: null, owner: 'k', description: ${JSON.stringify(BULK)},
    headers: { 'x-n': String(i) }, secrets: [{ sealed: 'plain:s', createdAt: at, expiresAt: null }],
    signing: 'hmac-sha256', rateLimit: null, ordering: 'none', disabledAt: null, disabledReason: null,
    enabledAt: null, createdAt: at, updatedAt: at, version: 1,
  };
  // the lock still held (its holder killed, not yet stale) fails an insert that wrote nothing: try again
  for (;;) {
    try {
      await store.insert(record);
      break;
    } catch (error) {
      if (error.code !== 'ELOCKED') throw error;
    }
  }
  process.stdout.write('COMMITTED ' + id + '\\n');
}
`;

/** Takes the table's lock as the store does, says LOCKED, and holds it (refreshing it) until killed. */
const LOCK_HOLDER = `
const lockfile = await import('proper-lockfile');
const { diskPaths } = await import(${JSON.stringify(DISK_MODULE)});
const context = JSON.parse(process.env.STORE_CONTEXT);
const paths = diskPaths(context.options.path, context.table);
await lockfile.lock(paths.file, { lockfilePath: paths.lock, realpath: false, stale: ${LOCK_STALE_MS}, update: 1000 });
process.stdout.write('LOCKED\\n');
setInterval(() => {}, 60_000);
`;

/** The ids a writer printed, from whole lines only (a line cut by the kill is not counted). */
function committedIds(output: string): string[] {
  const whole = output.slice(0, output.lastIndexOf('\n') + 1);
  return [...whole.matchAll(/^COMMITTED (\S+)$/gm)].map((match) => match[1]);
}

/**
 * Kills `writer` with SIGKILL as soon as a temporary file of the table appears in the directory
 * (a write between its start and its rename), or after 10 s wherever it is.
 */
function killOnTemporaryFile(writer: Spawned, prefix: string): Promise<void> {
  return new Promise((resolve) => {
    const watcher = watch(directory, (_event, name) => {
      if (name?.startsWith(prefix) && writer.child.kill('SIGKILL')) finish();
    });
    const timer = setTimeout(finish, 10_000);
    function finish() {
      clearTimeout(timer);
      watcher.close();
      resolve();
    }
  });
}

/** How long a step that waits for a stale lock to be taken over may take on a loaded machine. */
const TAKE_OVER_MS = LOCK_STALE_MS + 25_000;

/**
 * Inserts `record`, trying again while the store answers ELOCKED (a writer gives up on a held lock
 * before the guard's time limit; the caller is told to come back): answers how many attempts it took.
 * A lock that is never taken over fails the insert after TAKE_OVER_MS.
 */
async function insertWaitingForLock(store: EndpointStore, record: StoredEndpoint): Promise<number> {
  const deadline = performance.now() + TAKE_OVER_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      await store.insert(record);
      return attempt;
    } catch (error) {
      if ((error as { code?: string }).code !== 'ELOCKED' || performance.now() > deadline) throw error;
    }
  }
}

describe('disk store: processes killed with SIGKILL, and the lock', () => {
  it('a writer killed while writing in a loop leaves a file that reads and holds every committed record', async (t) => {
    const table = `killed_${randomBytes(4).toString('hex')}`;
    const context = contextOf(table);
    const store = await openStore(context);
    t.after(() => store.close());
    await store.install();
    const paths = diskPaths(directory, table);
    const committed: string[] = [];
    // writers in turn, each killed after a different number of writes (each one after the first
    // starts by taking over the lock its killed predecessor held): two, or more until one was
    // caught mid-write, between its temporary file's creation and its rename (its temporary file
    // is still there after the kill); a loaded machine may deliver the watch event too late
    const writesBeforeKill = [15, 40, 25, 30, 20];
    let killedMidWrite = 0;
    for (let round = 0; round < writesBeforeKill.length && (round < 2 || killedMidWrite === 0); round++) {
      const writes = writesBeforeKill[round];
      const writer = runChild(WRITER, context);
      try {
        await eventually(() => committedIds(writer.output()).length >= writes, TAKE_OVER_MS, `${writes} commits`, 5);
        // then kill it the moment its next write has created its temporary file (or soon anyway)
        await killOnTemporaryFile(writer, paths.temporaryPrefix);
      } finally {
        writer.child.kill('SIGKILL');
      }
      const exit = await writer.exitedWithin(10_000);
      assert.equal(exit.signal, 'SIGKILL', writer.output());
      const mine = committedIds(writer.output());
      committed.push(...mine);
      // the writer swept its predecessors' temporary files at its first write: any left is its own
      const leftovers = (await readdir(directory)).filter((name) => name.startsWith(paths.temporaryPrefix));
      if (leftovers.length > 0) killedMidWrite++;
      t.diagnostic(
        `killed after ${mine.length} commits, ${leftovers.length > 0 ? 'mid-write (its temporary file left behind)' : 'between writes'}`,
      );

      // the file is one whole version: it parses, and every answered insert is in it
      const raw = JSON.parse(await readFile(paths.file, 'utf8')) as { endpoints: { id: string }[] };
      const onDisk = new Set(raw.endpoints.map((row) => row.id));
      for (const id of committed) assert.ok(onDisk.has(id), `${id} was committed before the kill`);
      assert.ok(
        onDisk.size <= committed.length + round + 1,
        'besides the committed inserts, at most the one in flight at each kill landed',
      );
      const listed = await store.list({ owner: 'k' });
      assert.equal(listed.total, onDisk.size);
      for (const record of listed.records) assert.equal(record.description, BULK);
    }

    assert.ok(killedMidWrite > 0, 'at least one writer was killed between creating its temporary file and its rename');

    // and the store still takes writes, once the killed writer's lock is stale
    const after = makeEndpoint({ owner: 'k' });
    await insertWaitingForLock(store, after);
    assert.deepEqual(await store.get(after.id), after);
    const names = await readdir(directory);
    assert.deepEqual(
      names.filter((name) => name.startsWith(paths.temporaryPrefix)),
      [],
      'a writer removes the temporary files of killed ones',
    );
    assert.ok(!names.includes(`${table}.lock`), 'the lock is released');
  });

  it('a lock left by a killed process does not block the next writer forever: it is taken over once stale', async (t) => {
    const table = `stale_${randomBytes(4).toString('hex')}`;
    const context = contextOf(table);
    const store = await openStore(context);
    t.after(() => store.close());
    await store.install();
    const paths = diskPaths(directory, table);
    const holder = runChild(LOCK_HOLDER, context);
    try {
      await holder.waitFor(/^LOCKED$/m, 20_000);
    } finally {
      holder.child.kill('SIGKILL');
    }
    await holder.exitedWithin(10_000);
    assert.ok((await stat(paths.lock)).isDirectory(), 'the killed process left its lock behind');

    const record = makeEndpoint();
    const started = performance.now();
    const attempts = await insertWaitingForLock(store, record);
    const waited = performance.now() - started;
    t.diagnostic(`the next writer waited ${Math.round(waited)} ms for the stale lock (${attempts} attempt(s))`);
    assert.deepEqual(await store.get(record.id), record);
    await assert.rejects(stat(paths.lock), { code: 'ENOENT' }, 'the lock was released after the write');
  });

  it('a lock held by a live process fails writes with ELOCKED within the guard’s time limit, writing nothing', async (t) => {
    const table = `held_${randomBytes(4).toString('hex')}`;
    const context = contextOf(table);
    const store = await openStore(context);
    t.after(() => store.close());
    await store.install();
    const holder = runChild(LOCK_HOLDER, context);
    t.after(() => void holder.child.kill('SIGKILL'));
    await holder.waitFor(/^LOCKED$/m, 20_000);
    // two writers of this process at once: the second's wait behind the first counts in its limit
    const records = [makeEndpoint(), makeEndpoint()];
    const started = performance.now();
    const outcomes = await Promise.all(
      records.map((record) =>
        store.insert(record).then(
          () => assert.fail('an insert went through a held lock'),
          (failure: unknown) => ({ error: failure, after: performance.now() - started }),
        ),
      ),
    );
    t.diagnostic(`the writers gave up after ${outcomes.map(({ after }) => Math.round(after)).join(' and ')} ms`);
    for (const { error, after } of outcomes) {
      assert.equal((error as { code?: string }).code, 'ELOCKED');
      assert.ok(isStoreUnreachable(error), 'the guard answers it as a store that cannot serve (503)');
      assert.ok(after < STORE_TIME_LIMIT_MS, `gave up within the guard's ${STORE_TIME_LIMIT_MS} ms`);
    }
    for (const record of records) assert.equal(await store.get(record.id), null);
  });
});

describe('disk store: files and names', () => {
  it('before install, reads and writes throw and say the store is not installed', async (t) => {
    const store = await openStore(contextOf(`missing_${randomBytes(4).toString('hex')}`));
    t.after(() => store.close());
    await assert.rejects(store.get('ep_x'), /does not exist; install the store first/);
    await assert.rejects(store.insert(makeEndpoint()), /does not exist; install the store first/);
    await assert.rejects(store.ping());
  });

  it('install refuses a file that is not an endpoint table, and leaves it as it was', async (t) => {
    const table = `foreign_${randomBytes(4).toString('hex')}`;
    const paths = diskPaths(directory, table);
    await writeFile(paths.file, '{"something":"else"}');
    const store = await openStore(contextOf(table));
    t.after(() => store.close());
    await assert.rejects(store.install(), /is not an endpoint table/);
    assert.equal(await readFile(paths.file, 'utf8'), '{"something":"else"}');
  });

  it('a table name that could reach outside the directory is refused', async () => {
    for (const table of ['../up', 'a/b', '', '.hidden', 'a.json']) {
      await assert.rejects(openStore(contextOf(table)), /table name/, JSON.stringify(table));
    }
  });

  it('the file holds ISO dates and one endpoint per line', async (t) => {
    const table = `shape_${randomBytes(4).toString('hex')}`;
    const store = await openStore(contextOf(table));
    t.after(() => store.close());
    await store.install();
    const record = makeEndpoint({ disabledAt: new Date('2031-01-02T03:04:05.006Z'), disabledReason: 'r' });
    await store.insert(record);
    await store.insert(makeEndpoint());
    const text = await readFile(diskPaths(directory, table).file, 'utf8');
    assert.equal(text.split('\n').length, 5, 'opening line, two endpoints, closing line, final newline');
    assert.match(text, /"disabledAt":"2031-01-02T03:04:05.006Z"/);
  });
});

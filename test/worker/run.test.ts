/**
 * The worker process's start (worker/run.ts) with `webhooks.install` on (the default outside
 * production): a database that cannot be reached yet is waited for, as the worker waits for one
 * that goes away (docs/reliability.md, "Worker: database outages"), not a reason to exit.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createTestDatabase } from '../helpers/database.ts';
import { migrate } from '../../shared/db/migrate.ts';
import { startTcpProxy } from '../helpers/tcp-proxy.ts';
import { spawnWorker } from './processes.ts';

const db = await createTestDatabase();

describe('worker process start', () => {
  const cleanups: (() => Promise<void>)[] = [];
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('started before its database answers, it waits (one warning line, no stack) and starts once it does, instead of exiting 1', async () => {
    const proxy = await startTcpProxy(db.url);
    cleanups.push(() => proxy.close());
    await proxy.cut();
    const worker = spawnWorker(proxy.url, { APP_WORKER__OUTAGE_LIMIT: '60s' });
    await worker.waitFor(/database not reachable; the worker starts once it answers/);
    assert.equal(worker.child.exitCode, null, 'still running while the database is away');

    await proxy.restore();
    await worker.waitFor(/worker started/, 30_000);
    const waited = worker.output();
    assert.equal(waited.match(/database not reachable/g)?.length, 1, 'one warning line, however long it waits');
    assert.doesNotMatch(waited, /FATAL|could not start|\n\s+at /, 'no fatal line, no stack');

    worker.child.kill('SIGTERM');
    assert.equal((await worker.exitedWithin(15_000)).code, 0);
  });

  it('gives up past worker.outageLimit: exit 1, saying why', async () => {
    const proxy = await startTcpProxy(db.url);
    cleanups.push(() => proxy.close());
    await proxy.cut();
    const worker = spawnWorker(proxy.url, { APP_WORKER__OUTAGE_LIMIT: '1s' });
    const exit = await worker.exitedWithin(20_000);
    assert.equal(exit.code, 1);
    const output = worker.output();
    assert.match(output, /database not reachable; the worker starts once it answers/);
    assert.match(output, /"msg":"worker could not start: the database has not answered for 1 s \(worker.outageLimit\)/);
    assert.match(output, /the database has not answered for 1 s \(worker\.outageLimit\)/);
  });
});

describe('worker process start on a database behind this code', () => {
  it('waits, saying so in one line, and starts once the database is migrated, where it started and failed every heartbeat', async () => {
    const empty = await createTestDatabase({ empty: true });
    const worker = spawnWorker(empty.url, { APP_WEBHOOKS__INSTALL: 'false' });
    await worker.waitFor(
      /the worker waits for its database: the database is not migrated: \d+ migrations pending/,
      30_000,
    );
    assert.equal(worker.child.exitCode, null, 'still running while the database is behind');

    await migrate({ config: empty.config, log: empty.log });
    await worker.waitFor(/database migrated: the worker starts/, 30_000);
    await worker.waitFor(/worker started/, 30_000);
    const output = worker.output();
    assert.equal(output.match(/the worker waits for its database/g)?.length, 1, 'one line, however long it waits');
    assert.doesNotMatch(output, /heartbeat|\n\s+at /, 'no failed heartbeat, no stack');

    worker.child.kill('SIGTERM');
    assert.equal((await worker.exitedWithin(15_000)).code, 0);
  });
});

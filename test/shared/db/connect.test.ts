/**
 * The service's pools replace each connection within `db.maxLifetime` (drawn between three
 * quarters of it and all of it, so a pool's connections are not all replaced at once), never one
 * of a `keepOpen` pool, and a statement running when its connection's time is up finishes first.
 * An ended pool opens no connection.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { connect, connectionLifetime } from '../../../shared/db/connect.ts';
import { createTestDatabase } from '../../helpers/database.ts';
import { eventually } from '../../helpers/poll.ts';
import { startTcpProxy } from '../../helpers/tcp-proxy.ts';

const db = await createTestDatabase();
const pools: { end(options?: { timeout?: number }): Promise<void> }[] = [];
after(async () => {
  for (const pool of pools) await pool.end({ timeout: 1 });
});

const backend = async (sql: ReturnType<typeof connect>) =>
  (await sql<{ pid: number }[]>`select pg_backend_pid() as pid`)[0].pid;

describe('connection lifetime', () => {
  it('each connection’s lifetime is drawn between three quarters of db.maxLifetime and all of it; 0 stays never', () => {
    const draw = connectionLifetime(4_000);
    const drawn = Array.from({ length: 200 }, draw);
    assert.ok(
      drawn.every((seconds) => seconds >= 3 && seconds <= 4),
      `${Math.min(...drawn)}..${Math.max(...drawn)}`,
    );
    assert.ok(new Set(drawn).size > 100, 'drawn anew each time');
    assert.equal(connectionLifetime(0)(), 0);
  });

  it('a connection is replaced within db.maxLifetime, after the statement it runs', async () => {
    const sql = connect(db.configWith({ db: { maxLifetime: '400ms' } }), db.log, { max: 1 });
    pools.push(sql);
    const first = await backend(sql);
    // runs past the lifetime on the same connection, and is answered
    const slept = await sql`select pg_sleep(0.6), pg_backend_pid() as pid`;
    assert.equal(slept[0].pid, first, 'the statement ran to its end on its connection');
    await eventually(async () => (await backend(sql)) !== first, 5_000, 'a new connection');
  });

  it('a keepOpen pool keeps its connection', async () => {
    const sql = connect(db.configWith({ db: { maxLifetime: '200ms' } }), db.log, { max: 1, keepOpen: true });
    pools.push(sql);
    const first = await backend(sql);
    const replaced = connect(db.configWith({ db: { maxLifetime: '200ms' } }), db.log, { max: 1 });
    pools.push(replaced);
    const other = await backend(replaced);
    // the other pool's connection being replaced is what tells enough time has passed
    await eventually(async () => (await backend(replaced)) !== other, 5_000, 'the other pool replaced its connection');
    assert.equal(await backend(sql), first);
  });
});

describe('an ended pool', () => {
  it('opens no connection once end() is done: a reservation after it is refused with CONNECTION_ENDED and nothing connects', async () => {
    const proxy = await startTcpProxy(db.url);
    after(() => proxy.close());
    const sql = connect(db.configWith({ databaseUrl: proxy.url }), db.log, { max: 1 });
    await sql`select 1`;
    assert.equal(proxy.accepted, 1);
    await sql.end({ timeout: 1 });
    // the driver itself does not refuse a reservation after its end: it connects again for it,
    // as it does for a connection whose reconnect was scheduled before the end
    await assert.rejects(sql.reserve(), { code: 'CONNECTION_ENDED' });
    assert.equal(proxy.accepted, 1, 'no connection opened after the end');
  });
});

/**
 * Transactions and savepoints (shared/db/transaction.ts): committed when the work resolves,
 * rolled back when it rejects, and, when the connection is lost under the work, nothing more sent
 * on it, so the pool keeps every connection. A connection reset through a proxy is the cut; a
 * pool of one connection shows what the cut left behind, since the next queries must use it.
 */
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { commitDeadline, withDeadline } from '../../../shared/db/commit-deadline.ts';
import { connect, type Sql } from '../../../shared/db/connect.ts';
import { outsideRequest } from '../../../shared/db/request-statements.ts';
import { inTransaction, LOST_CONNECTION_GRACE_MS, savepoint, transaction } from '../../../shared/db/transaction.ts';
import { createTestDatabase } from '../../helpers/database.ts';
import { deadlines } from '../../helpers/deadlines.ts';
import { surviveDriverCrashAsProcessesDo } from '../../helpers/driver-crash.ts';
import { startResettingProxy } from '../../helpers/postgres-fronts.ts';
import { ROOT } from '../../helpers/processes.ts';

const db = await createTestDatabase();
const cleanups: (() => Promise<unknown>)[] = [];
before(async () => {
  surviveDriverCrashAsProcessesDo(db.log);
  await db.sql`create table transaction_probe (id text primary key)`;
});
after(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Far beyond a reconnect (the backoff is at most 1 s): past it, a query counts as hung. */
const DEADLINE_MS = 5_000;

const { within, rejection } = deadlines(DEADLINE_MS);

async function stored(id: string): Promise<boolean> {
  return (await db.sql`select 1 from transaction_probe where id = ${id}`).length === 1;
}

/** A pool of one connection through a proxy whose `reset()` cuts it. */
async function cutPool(): Promise<{ sql: Sql; proxy: Awaited<ReturnType<typeof startResettingProxy>> }> {
  const proxy = await startResettingProxy(db.url);
  const sql = connect(db.configWith({ databaseUrl: proxy.url }), undefined, { max: 1, name: 'transaction-cut' });
  cleanups.push(
    () => proxy.close(),
    () => sql.end({ timeout: 1 }),
  );
  await sql`select 1`;
  return { sql, proxy };
}

/** The pool's one connection answers query after query (the first reconnects it). */
async function answersEveryQuery(sql: Sql): Promise<void> {
  for (let i = 0; i < 3; i += 1) {
    const [row] = await within(`query ${i + 1} after the cut`, sql<{ i: number }[]>`select ${i}::int as i`);
    assert.equal(row?.i, i);
  }
}

describe('transaction', () => {
  it('commits what the work wrote when it resolves, in the mode asked', async () => {
    const isolation = await transaction(
      db.sql,
      async (tx) => {
        await tx`insert into transaction_probe values ('committed')`;
        const [row] = await tx<{ level: string }[]>`select current_setting('transaction_isolation') as level`;
        return row.level;
      },
      'isolation level repeatable read',
    );
    assert.equal(isolation, 'repeatable read');
    assert.ok(await stored('committed'));
  });

  it('rolls back when the work rejects, with the work’s own error', async () => {
    const error = await rejection(
      'the failing transaction',
      transaction(db.sql, async (tx) => {
        await tx`insert into transaction_probe values ('rolled-back')`;
        await tx`select 1 / ${0}::int`;
      }),
    );
    assert.equal(error.code, '22012');
    assert.equal(await stored('rolled-back'), false);
  });

  it('a savepoint that rejects undoes its own writes only', async () => {
    await transaction(db.sql, async (tx) => {
      await tx`insert into transaction_probe values ('outer')`;
      await rejection(
        'the savepoint',
        savepoint(tx, async (inner) => {
          await inner`insert into transaction_probe values ('inner')`;
          throw new Error('undo the savepoint');
        }),
      );
    });
    assert.deepEqual([await stored('outer'), await stored('inner')], [true, false]);
  });

  it('inTransaction opens a transaction on a pool and a savepoint inside one', async () => {
    const levels = await inTransaction(db.sql, async (tx) => {
      const outer = (await tx<{ xid: string }[]>`select pg_current_xact_id()::text as xid`)[0].xid;
      const inner = await inTransaction(
        tx,
        async (s) => (await s<{ xid: string }[]>`select txid_current()::text as xid`)[0].xid,
      );
      return { outer, inner };
    });
    // a savepoint's writes belong to its transaction: the same top-level id
    assert.equal(levels.inner, levels.outer);
  });
});

/** Asserts `error` is the 503 of a write whose request timed out before its commit. */
function assertTimedOut(error: unknown): true {
  assert.equal((error as { status?: number }).status, 503);
  assert.equal((error as { code?: string }).code, 'APP_REQUEST_TIMEOUT');
  return true;
}

describe("transaction: a request's commit (shared/db/commit-deadline.ts)", () => {
  it('a deadline that passes after the last statement, before the commit: rolled back, 503 APP_REQUEST_TIMEOUT', async () => {
    const deadline = commitDeadline();
    await assert.rejects(
      withDeadline(deadline, () =>
        transaction(db.sql, async (tx) => {
          await tx`insert into transaction_probe values ('timed-out')`;
          assert.equal(deadline.expire(), true, 'the timeout answers 503: nothing was claimed yet');
        }),
      ),
      assertTimedOut,
    );
    assert.equal(await stored('timed-out'), false, 'the driver rolled back instead of committing');
  });

  it('a transaction that claimed first commits, and the timeout then answers false (the answer waits for it)', async () => {
    const deadline = commitDeadline();
    const answer = await withDeadline(deadline, () =>
      transaction(db.sql, async (tx) => {
        await tx`insert into transaction_probe values ('claimed')`;
        return 'committed';
      }),
    );
    assert.equal(answer, 'committed');
    assert.ok(await stored('claimed'));
    assert.equal(deadline.expire(), false);
    assert.equal(deadline.expired, false);
  });

  it('a savepoint claims nothing: its transaction commits, and claims then', async () => {
    const deadline = commitDeadline();
    await assert.rejects(
      withDeadline(deadline, () =>
        transaction(db.sql, async (tx) => {
          await savepoint(tx, (inner) => inner`insert into transaction_probe values ('in-savepoint')`);
          await inTransaction(tx, (inner) => inner`insert into transaction_probe values ('in-savepoint-too')`);
          assert.equal(deadline.expire(), true, 'the savepoints left the deadline free to pass');
        }),
      ),
      assertTimedOut,
    );
    assert.equal(await stored('in-savepoint'), false);
    assert.equal(await stored('in-savepoint-too'), false);
  });

  it('a read only transaction claims nothing: the request can still time out after it', async () => {
    const deadline = commitDeadline();
    const [row] = await withDeadline(deadline, () => transaction(db.sql, (tx) => tx`select 1 as one`, 'read only'));
    assert.equal(row.one, 1);
    assert.equal(deadline.expire(), true);
  });

  it('outside a request, or in work that belongs to none, a transaction commits as before', async () => {
    await transaction(db.sql, (tx) => tx`insert into transaction_probe values ('no-request')`);
    assert.ok(await stored('no-request'));
    const deadline = commitDeadline();
    deadline.expire();
    await withDeadline(deadline, () =>
      outsideRequest(() => transaction(db.sql, (tx) => tx`insert into transaction_probe values ('outside-request')`)),
    );
    assert.ok(await stored('outside-request'), 'work of no request is not the timed-out request’s write');
  });
});

describe('transaction across a connection reset', () => {
  it('a statement cut in flight rejects the transaction, stores nothing, and the pool answers every later query', async () => {
    const { sql, proxy } = await cutPool();
    const sent = proxy.sent('cut_in_flight');
    const cut = transaction(sql, async (tx) => {
      await tx`insert into transaction_probe values ('cut-first')`;
      await tx`select pg_sleep(0.5) as cut_in_flight`;
    });
    await sent;
    proxy.reset();
    await rejection('the cut transaction', cut);
    await answersEveryQuery(sql);
    assert.equal(await stored('cut-first'), false);
    await within(
      'a transaction after the cut',
      transaction(sql, async (tx) => {
        await tx`insert into transaction_probe values ('after-cut')`;
      }),
    );
    assert.ok(await stored('after-cut'));
  });

  it('a statement of a savepoint cut in flight rejects the transaction, and the pool answers every later query', async () => {
    const { sql, proxy } = await cutPool();
    const sent = proxy.sent('cut_in_savepoint');
    const cut = transaction(sql, async (tx) => {
      await tx`insert into transaction_probe values ('savepoint-outer')`;
      await savepoint(tx, async (inner) => {
        await inner`select pg_sleep(0.5) as cut_in_savepoint`;
      });
    });
    await sent;
    proxy.reset();
    await rejection('the cut transaction', cut);
    await answersEveryQuery(sql);
    assert.equal(await stored('savepoint-outer'), false);
  });

  it('a transaction abandoned on a lost connection is not kept: the driver’s side of it is collected', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const collected = new Set<string>();
    const registry = new FinalizationRegistry<string>((tag) => collected.add(tag));
    const { sql, proxy } = await cutPool();
    const abandon = async (marker: string) => {
      const sent = proxy.sent(marker);
      const cut = transaction(sql, async (tx) => {
        // the transaction's own query function: what the driver's part, waiting on the work, holds
        registry.register(tx, marker);
        await tx.unsafe(`select pg_sleep(0.5) as ${marker}`);
      });
      await sent;
      proxy.reset();
      await rejection('the cut transaction', cut);
      await answersEveryQuery(sql);
    };
    await abandon('abandoned_first');
    await abandon('abandoned_second');
    for (let round = 0; round < 50 && collected.size < 2; round += 1) {
      gc();
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.deepEqual([...collected].sort(), ['abandoned_first', 'abandoned_second']);
  });

  it('work that throws a connection error of its own, on a connection still open, is rolled back after the grace', async () => {
    const { sql } = await cutPool();
    const started = performance.now();
    const error = await rejection(
      'the transaction',
      transaction(sql, async (tx) => {
        await tx`insert into transaction_probe values ('own-error')`;
        throw Object.assign(new Error('another pool lost its connection'), { code: 'ECONNRESET' });
      }),
    );
    assert.equal(error.message, 'another pool lost its connection');
    assert.ok(performance.now() - started >= LOST_CONNECTION_GRACE_MS * 0.9, 'rolled back only after the grace');
    assert.equal(await stored('own-error'), false);
    await answersEveryQuery(sql);
  });
});

describe('every transaction goes through transaction()', () => {
  /** Where the driver's own calls may stay: the helper. */
  const ALLOWED: Record<string, RegExp> = {
    'shared/db/transaction.ts': /\.(begin|savepoint)\(/,
  };

  it('no file of the processes calls the driver’s begin, savepoint or reserve itself', async () => {
    const found: string[] = [];
    for (const folder of ['api', 'worker', 'shared', 'cli']) {
      for (const name of await readdir(join(ROOT, folder), { recursive: true })) {
        if (!name.endsWith('.ts')) continue;
        const file = `${folder}/${name}`;
        const code = (await readFile(join(ROOT, file), 'utf8')).replace(/^\s*(\/\/|\*|\/\*\*).*$/gm, '');
        for (const match of code.matchAll(/\.(begin|savepoint|reserve)\(/g)) {
          if (!ALLOWED[file]?.test(match[0])) found.push(`${file}: ${match[0]}`);
        }
      }
    }
    assert.deepEqual(found, []);
  });
});

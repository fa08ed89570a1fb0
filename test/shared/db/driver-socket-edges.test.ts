/**
 * The driver's sockets (shared/db/driver-socket.ts) in the driver's other uses, against the real
 * database: cancelled queries (plain and over TLS), LISTEN connections that are cut or reset,
 * reserved connections and transactions across a cut, `end()` during resets, idle timeouts, a
 * refused and a silent server (`connect_timeout` still fires), large and many writes, ordinary
 * use over TLS (after an SSLRequest and direct), a write left unsent over TLS, and other code's
 * `tls.connect`, which keeps Node's own order of 'error' and 'close'. Every query answers correctly or rejects; nothing hangs past `DEADLINE_MS`; no
 * uncaught exception or unhandled rejection.
 */
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { createServer as createHttpServer } from 'node:http';
import { createServer, Socket, type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import tls, { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import postgres from 'postgres';
import { connect, reconnectBackoff, type Sql } from '../../../shared/db/connect.ts';
import { driverSocket } from '../../../shared/db/driver-socket.ts';
import { TLS_CERT, TLS_KEY } from '../../fixtures/tls.ts';
import { createLogger } from '../../../shared/log/logger.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { linesInto } from '../../helpers/logs.ts';
import { deadlines } from '../../helpers/deadlines.ts';
import { surviveDriverCrashAsProcessesDo } from '../../helpers/driver-crash.ts';
import { eventually } from '../../helpers/poll.ts';
import { freePort } from '../../helpers/ports.ts';
import { queryOnNextClose, startResettingProxy, startTlsPostgres } from '../../helpers/postgres-fronts.ts';
import { forward, listenInFront, startTcpProxy } from '../../helpers/tcp-proxy.ts';
import { startTlsFront } from '../../helpers/tls-front.ts';

/** Far beyond a reconnect (the backoff is at most 1 s): past it, a query counts as hung. */
const DEADLINE_MS = 8_000;

/** What reached the process's last-resort handlers while these tests ran. */
const escaped: unknown[] = [];
const onUncaught = (error: unknown) => escaped.push(error);
const onUnhandled = (reason: unknown) => escaped.push(reason);

let db: TestDatabase;
const cleanups: (() => Promise<unknown>)[] = [];
/** `made`, closed when the file's tests are done. */
async function kept<T extends { close(): Promise<void> }>(made: Promise<T>): Promise<T> {
  const front = await made;
  cleanups.push(() => front.close());
  return front;
}
before(async () => {
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUnhandled);
  // A transaction or reservation that goes on after its connection was cut makes the driver write
  // to no socket (the same without driverSocket): survived as the processes do, so `escaped`
  // holds every other error.
  db = await createTestDatabase();
  surviveDriverCrashAsProcessesDo(db.log);
  await db.sql`create table driver_edges_probe (id text primary key)`;
});
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  process.off('uncaughtException', onUncaught);
  process.off('unhandledRejection', onUnhandled);
});

const { within, rejection } = deadlines(DEADLINE_MS);

/** Queries `sql` until it answers (a connection may fail the query that finds it closed). */
async function answersAgain(sql: Sql): Promise<void> {
  const failures: string[] = [];
  for (let round = 0; round < 4; round += 1) {
    try {
      const [row] = await within('a query after the return', sql`select ${round}::int as round`);
      assert.equal(row?.round, round);
      return;
    } catch (error) {
      failures.push(String(error));
    }
  }
  assert.fail(`the pool does not answer: ${failures.join('; ')}`);
}

async function stored(id: string): Promise<boolean> {
  return (await db.sql`select 1 from driver_edges_probe where id = ${id}`).length === 1;
}

/** `connect()` on `url` with `max` connections, ended after the file. */
function pool(url: string, max = 2, name = 'edges'): Sql {
  const sql = connect(db.configWith({ databaseUrl: url }), undefined, { max, name });
  cleanups.push(() => sql.end({ timeout: 1 }));
  return sql;
}

/** Waits until the test database shows `text` running as an active query. */
async function running(text: string): Promise<void> {
  await eventually(
    async () =>
      (
        await db.sql`select 1 from pg_stat_activity where state = 'active' and query like ${`%${text}%`} and pid <> pg_backend_pid()`
      ).length > 0,
    DEADLINE_MS,
    `${text} running`,
  );
}

describe('driver sockets: a cancelled query', () => {
  for (const over of ['plain', 'TLS'] as const) {
    it(`rejects with 57014 (query_canceled) and the connection answers after (${over})`, async () => {
      const front = over === 'TLS' ? await kept(startTlsPostgres(db.url)) : undefined;
      const sql = pool(front?.url ?? db.url, 1);
      await sql`select 1`;
      const marker = `cancel_me_${over.toLowerCase()}`;
      const query = sql.unsafe(`select pg_sleep(30) as ${marker}`);
      const settled = rejection('the cancelled query', query);
      await running(marker);
      const cancelling = query.cancel();
      const error = await settled;
      await within('the cancel request', Promise.resolve(cancelling));
      assert.equal(error.code, '57014', `cancelled, not ${error.code}: ${error.message}`);
      const [row] = await within('the next query', sql`select 2 as two`);
      assert.equal(row?.two, 2);
      if (front) assert.ok(front.secured >= 2, 'the query and its cancel request both went over TLS');
    });
  }

  it('a query cancelled while it waits behind another on its connection rejects with 57014, and the first answers', async () => {
    const sql = pool(db.url, 1);
    await sql`select 1`;
    const busy = sql`select pg_sleep(0.5) as busy`;
    const busyDone = within('the busy query', Promise.resolve(busy));
    const queued = sql.unsafe('select pg_sleep(30) as queued_behind');
    const settled = rejection('the queued query', queued);
    // sent behind the busy one (the driver gives a sent query its connection's state), not yet running
    await eventually(() => (queued as unknown as { state?: unknown }).state, DEADLINE_MS, 'the queued query sent');
    // the driver sends its cancel request once the busy one is done and this one starts
    const cancelling = queued.cancel();
    assert.equal((await busyDone).length, 1);
    const error = await settled;
    assert.equal(error.code, '57014', `cancelled, not ${error.code}: ${error.message}`);
    await within('the cancel request', Promise.resolve(cancelling));
    const [row] = await within('the next query', sql`select 3 as three`);
    assert.equal(row?.three, 3);
  });
});

describe('driver sockets: LISTEN connections', () => {
  for (const how of ['cut and restored', 'reset (RST)', 'refused by a proxy, then passed'] as const) {
    it(`re-listen after their connection is ${how}, and hear later notifications`, async () => {
      const cutting = how === 'reset (RST)' ? undefined : await startTcpProxy(db.url);
      const resetting = cutting ? undefined : await kept(startResettingProxy(db.url));
      if (cutting) cleanups.push(() => cutting.close());
      const sql = pool((cutting ?? resetting)?.url as string, 2);
      const heard: string[] = [];
      let listened = 0;
      const channel = `edges_${how.split(' ')[0]}`;
      await within(
        'listen',
        sql.listen(
          channel,
          (payload) => heard.push(payload),
          () => (listened += 1),
        ),
      );
      await db.sql.notify(channel, 'before');
      await eventually(() => heard.includes('before'), DEADLINE_MS, 'the first notification');

      if (how === 'refused by a proxy, then passed') {
        // a proxy whose server is down: connections accepted and closed before a word, for a while
        const before = cutting?.accepted ?? 0;
        cutting?.refuse();
        await eventually(() => (cutting?.accepted ?? 0) >= before + 2, DEADLINE_MS, 'connecting again, refused');
        cutting?.flow();
      } else if (cutting) {
        await cutting.cut();
        await cutting.restore();
      } else {
        resetting?.reset();
      }
      await eventually(() => listened >= 2, DEADLINE_MS, 'listening again');
      await eventually(
        async () => {
          await db.sql.notify(channel, 'after');
          return heard.includes('after');
        },
        DEADLINE_MS,
        'a notification after the return',
        100,
      );
      // the pool's own connections answer too, and notify through it is heard
      await answersAgain(sql);
      await within('notify', sql.notify(channel, 'own'));
      await eventually(() => heard.includes('own'), DEADLINE_MS, 'its own notification');
    });
  }
});

describe('driver sockets: reserved connections and transactions across a cut', () => {
  it('a reservation held across a cut: once released, the pool answers and reserves again after the return', async () => {
    const proxy = await startTcpProxy(db.url);
    cleanups.push(() => proxy.close());
    const sql = pool(proxy.url, 2);
    const reserved = await within('reserve', sql.reserve());
    assert.equal((await reserved`select 1 as one`)[0]?.one, 1);
    await proxy.cut();
    reserved.release();
    await proxy.restore();
    await answersAgain(sql);
    const again = await within('reserve again', sql.reserve());
    const [row] = await within('a query on the new reservation', again`select 7 as seven`);
    assert.equal(row?.seven, 7);
    again.release();
    const rows = await within('two at once', Promise.all([sql`select 1 as n`, sql`select 2 as n`]));
    assert.deepEqual(
      rows.map((r) => r[0]?.n),
      [1, 2],
    );
  });

  it('a query on a reservation whose connection was cut rejects', async (t) => {
    const proxy = await startTcpProxy(db.url);
    cleanups.push(() => proxy.close());
    const sql = pool(proxy.url, 2);
    const reserved = await within('reserve', sql.reserve());
    await reserved`select 1`;
    await proxy.cut();
    const id = 'reserved-after-cut';
    const outcome = await within(
      'the reserved write',
      reserved`insert into driver_edges_probe values (${id})`.then(
        () => 'resolved' as const,
        () => 'rejected' as const,
      ),
    );
    reserved.release();
    await proxy.restore();
    if (outcome === 'resolved') assert.ok(await stored(id), 'the reserved write resolved but was never stored');
    // The driver keeps a reservation on its connection after that closes: the query is written
    // to no socket, and once released the connection, still holding it, takes the pool's next
    // query, which never settles. The same without driverSocket; migrate, the only user of
    // reserve(), holds its for a few statements at start-up.
    await t.test(
      'the pool answers after the reservation is released',
      { todo: 'the driver gives the released, closed connection the next query, which never settles' },
      async () => {
        await within(
          'the first query after release',
          sql`select 1`.catch(() => {}),
          3_000,
        );
      },
    );
  });

  it('a transaction cut in flight rejects with nothing stored, and the next one commits', async () => {
    const proxy = await startTcpProxy(db.url);
    cleanups.push(() => proxy.close());
    const sql = pool(proxy.url, 2);
    await sql`select 1`;
    const [a, b] = ['tx-cut-a', 'tx-cut-b'];
    const transaction = sql.begin(async (tx) => {
      await tx`insert into driver_edges_probe values (${a})`;
      await tx`insert into driver_edges_probe select ${b} from pg_sleep(0.5)`;
    });
    const settled = within(
      'the cut transaction',
      transaction.then(
        () => 'resolved' as const,
        () => 'rejected' as const,
      ),
    );
    await running('pg_sleep(0.5)');
    await proxy.cut();
    const outcome = await settled;
    await proxy.restore();
    const rows = { a: await stored(a), b: await stored(b) };
    if (outcome === 'resolved') assert.deepEqual(rows, { a: true, b: true }, 'committed whole');
    else assert.deepEqual(rows, { a: false, b: false }, 'rejected with nothing stored');
    await answersAgain(sql);
    const c = 'tx-after-cut';
    await within(
      'the next transaction',
      sql.begin(async (tx) => {
        await tx`insert into driver_edges_probe values (${c})`;
      }),
    );
    assert.ok(await stored(c));
  });

  it('a transaction reset in flight on a pool of one rejects, and the pool answers the next queries', async (t) => {
    const proxy = await kept(startResettingProxy(db.url));
    const sql = pool(proxy.url, 1);
    await sql`select 1`;
    const sent = proxy.sent('tx_reset_alone');
    const transaction = sql.begin(async (tx) => {
      await tx`select pg_sleep(0.3) as tx_reset_alone`;
    });
    await sent;
    proxy.reset();
    await rejection('the reset transaction', transaction);
    // The transaction's rollback is given to the connection after its close, behind the statement
    // the close failed: the driver keeps it, unsent, at the head of the connection's next session,
    // which answers the query it reconnected for, then waits for the rollback's answer and takes no
    // other query. The service's transactions send nothing more once their connection is lost,
    // for that reason (shared/db/transaction.ts).
    await t.test(
      'the queries after the first',
      {
        todo: "the driver holds the connection for the rollback sent after its close; the pool's other queries never settle",
      },
      async () => {
        for (let i = 0; i < 3; i += 1) {
          const [row] = await within(`query ${i + 1} after the reset`, sql`select ${i}::int as i`, 3_000);
          assert.equal(row?.i, i);
        }
      },
    );
  });
});

describe('driver sockets: ending and idle connections', () => {
  it('end({ timeout }) while connections are being reset settles every query and ends in time', async () => {
    const proxy = await kept(startResettingProxy(db.url));
    const sql = connect(db.configWith({ databaseUrl: proxy.url }), undefined, { max: 3 });
    await Promise.all([sql`select 1`, sql`select 2`, sql`select 3`]);
    const queries = Array.from({ length: 6 }, (_, i) =>
      sql`select ${i}::int as i, pg_sleep(0.2)`.then(
        () => 'resolved',
        () => 'rejected',
      ),
    );
    await running('as i, pg_sleep(0.2)');
    proxy.reset();
    await within('end', sql.end({ timeout: 1 }), 4_000);
    await within('the queries of the ended pool', Promise.all(queries));
    await rejection('a query after end', sql`select 1`);
  });

  it('end({ timeout }) on connections still connecting, then nothing is left open', async () => {
    const proxy = await kept(startResettingProxy(db.url));
    const sql = connect(db.configWith({ databaseUrl: proxy.url }), undefined, { max: 3 });
    const queries = Array.from({ length: 3 }, () =>
      sql`select 1`.then(
        () => 'resolved',
        () => 'rejected',
      ),
    );
    await within('end', sql.end({ timeout: 1 }), 4_000);
    await within('the queries of the ended pool', Promise.all(queries));
    await eventually(() => proxy.open === 0, DEADLINE_MS, 'every connection closed');
  });

  it('a pool whose connections closed on their idle timeout connects again and answers', async () => {
    const name = 'edges_idle';
    const sql = postgres(db.url, {
      max: 2,
      idle_timeout: 1,
      connect_timeout: 5,
      backoff: reconnectBackoff,
      onnotice: () => {},
      connection: { application_name: name },
      ...({ socket: driverSocket() } as object),
    });
    cleanups.push(() => sql.end({ timeout: 1 }));
    const count = async () =>
      (await db.sql`select count(*)::int as n from pg_stat_activity where application_name = ${name}`)[0]?.n as number;
    await Promise.all([sql`select pg_sleep(0.05)`, sql`select pg_sleep(0.05)`]);
    assert.equal(await count(), 2);
    await eventually(async () => (await count()) === 0, DEADLINE_MS, 'the idle connections closed');
    for (let round = 0; round < 2; round += 1) {
      const started = performance.now();
      const rows = await within(
        'queries after the idle timeout',
        Promise.all([sql`select 1 as n, pg_sleep(0.05)`, sql`select 2 as n, pg_sleep(0.05)`]),
      );
      assert.deepEqual(
        rows.map((r) => r[0]?.n),
        [1, 2],
      );
      assert.ok(performance.now() - started < 2_000, 'connected again at once, not after connect_timeout');
      await eventually(async () => (await count()) === 0, DEADLINE_MS, 'idle again');
    }
  });
});

describe('driver sockets: a server that refuses or does not answer', () => {
  it('a refused connection rejects at once (ECONNREFUSED), and the pool connects once the server listens', async () => {
    const port = await freePort();
    const url = new URL(db.url);
    url.host = `127.0.0.1:${port}`;
    const sql = pool(url.toString(), 2);
    const started = performance.now();
    const error = await rejection('a query to nothing', sql`select 1`);
    assert.equal(error.code, 'ECONNREFUSED', error.message);
    assert.ok(performance.now() - started < 2_000, 'refused at once');
    await rejection('a second query to nothing', sql`select 1`);
    const proxy = await startTcpProxy(db.url, port);
    cleanups.push(() => proxy.close());
    await answersAgain(sql);
    const rows = await within('two at once', Promise.all([sql`select 1 as n`, sql`select 2 as n`]));
    assert.deepEqual(
      rows.map((r) => r[0]?.n),
      [1, 2],
    );
  });

  for (const over of ['plain', 'TLS'] as const) {
    it(`a server that accepts and never answers fails the query with CONNECT_TIMEOUT, then the pool connects once it answers (${over})`, async () => {
      // over TLS, the silent server is in front of PostgreSQL's TLS
      const behind = over === 'TLS' ? (await kept(startTlsPostgres(db.url))).url : db.url;
      const proxy = await startTcpProxy(behind);
      cleanups.push(() => proxy.close());
      proxy.stall();
      const sql = pool(proxy.url, 1);
      const started = performance.now();
      const error = await rejection('a query to a silent server', sql`select 1`);
      const took = performance.now() - started;
      assert.equal(error.code, 'CONNECT_TIMEOUT', error.message);
      assert.ok(
        took > 4_000 && took < DEADLINE_MS,
        `timed out after connect_timeout (5 s), not ${Math.round(took)} ms`,
      );
      proxy.flow();
      await answersAgain(sql);
    });
  }
});

describe('driver sockets: large and many writes', () => {
  it('a query over 1,024 bytes, as the first of a new connection and on an open one, answers correctly', async () => {
    const sql = pool(db.url, 1);
    const big = 'x'.repeat(5_000);
    const [first] = await within('the first, large query', sql`select ${big}::text as t, length(${big}) as n`);
    assert.equal(first?.t, big);
    assert.equal(first?.n, 5_000);
    const text = `select '${'y'.repeat(3_000)}' as t`;
    const [second] = await within('a large query text', sql.unsafe(text));
    assert.equal(second?.t, 'y'.repeat(3_000));
  });

  it('many small queries in one turn answer each with its own value', async () => {
    const sql = pool(db.url, 4);
    const rows = await within(
      'many small queries',
      Promise.all(Array.from({ length: 300 }, (_, i) => sql`select ${i}::int as i`)),
    );
    assert.deepEqual(
      rows.map((r) => r[0]?.i),
      Array.from({ length: 300 }, (_, i) => i),
    );
  });

  it('small and large queries mixed on a connection that was cut answer correctly after the return', async () => {
    const proxy = await startTcpProxy(db.url);
    cleanups.push(() => proxy.close());
    const sql = pool(proxy.url, 2);
    await Promise.all([sql`select 1`, sql`select 2`]);
    await proxy.cut();
    await proxy.restore();
    await answersAgain(sql);
    const big = 'z'.repeat(2_000);
    const rows = await within(
      'mixed queries',
      Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          i % 5 === 0 ? sql`select ${big}::text as v` : sql`select ${String(i)}::text as v`,
        ),
      ),
    );
    assert.deepEqual(
      rows.map((r) => r[0]?.v),
      Array.from({ length: 40 }, (_, i) => (i % 5 === 0 ? big : String(i))),
    );
  });
});

describe('driver sockets: ordinary use over TLS (sslmode=require)', () => {
  it('many queries, a transaction and a 100 kB parameter answer as over plain TCP', async () => {
    const front = await kept(startTlsPostgres(db.url));
    const sql = pool(front.url, 3);
    const rows = await within(
      'many queries over TLS',
      Promise.all(Array.from({ length: 200 }, (_, i) => sql`select ${i}::int as i`)),
    );
    assert.deepEqual(
      rows.map((r) => r[0]?.i),
      Array.from({ length: 200 }, (_, i) => i),
    );
    const [x, y] = ['tls-tx-a', 'tls-tx-b'];
    await within(
      'a transaction over TLS',
      sql.begin(async (tx) => {
        await tx`insert into driver_edges_probe values (${x})`;
        await tx`insert into driver_edges_probe values (${y})`;
      }),
    );
    assert.ok((await stored(x)) && (await stored(y)));
    const rolledBack = 'tls-tx-rolled-back';
    await rejection(
      'a failing transaction over TLS',
      sql.begin(async (tx) => {
        await tx`insert into driver_edges_probe values (${rolledBack})`;
        await tx`select 1 / 0`;
      }),
    );
    assert.equal(await stored(rolledBack), false);
    const large = Array.from({ length: 100_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
    const [echo] = await within('a 100 kB parameter over TLS', sql`select ${large}::text as t, md5(${large}) as h`);
    assert.equal(echo?.t, large);
    assert.equal(echo?.h, (await db.sql`select md5(${large}) as h`)[0]?.h);
    assert.ok(front.secured >= 3, `every connection asked for TLS (${front.secured})`);
  });

  it('a TLS pool that was reset answers the next queries', async () => {
    const front = await kept(startTlsPostgres(db.url));
    const sql = pool(front.url, 2);
    await Promise.all([sql`select 1`, sql`select 2`]);
    front.reset();
    await answersAgain(sql);
    const rows = await within('two at once', Promise.all([sql`select 1 as n`, sql`select 2 as n`]));
    assert.deepEqual(
      rows.map((r) => r[0]?.n),
      [1, 2],
    );
  });
});

/**
 * PostgreSQL's direct TLS (`sslnegotiation=direct`, PostgreSQL 17) in front of the test database:
 * TLS from the first byte, with ALPN `postgresql`, passing the plain protocol on.
 */
async function startDirectTlsPostgres(target: string) {
  const upstream = new URL(target);
  const server = createTlsServer({ key: TLS_KEY, cert: TLS_CERT, ALPNProtocols: ['postgresql'] }, (secure) => {
    secure.on('error', () => secure.destroy());
    forward(secure, upstream);
  });
  const url = new URL(await listenInFront(server, target));
  url.searchParams.set('sslmode', 'require');
  url.searchParams.set('sslnegotiation', 'direct');
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return { url: url.toString() };
}

describe('driver sockets: a write left unsent over TLS', () => {
  for (const negotiation of ['postgres', 'direct'] as const) {
    it(`a TLS connection (sslnegotiation=${negotiation}) that closed with a write still buffered answers the next queries within the backoff`, async () => {
      const front =
        negotiation === 'direct' ? await startDirectTlsPostgres(db.url) : await kept(startTlsPostgres(db.url));
      const proxy = await startTcpProxy(front.url);
      cleanups.push(() => proxy.close());
      const lines: Record<string, unknown>[] = [];
      const config = db.configWith({ databaseUrl: proxy.url, logLevel: 'debug' });
      const sql = connect(config, createLogger(config, { name: 'test', destination: linesInto(lines) }), { max: 2 });
      cleanups.push(() => sql.end({ timeout: 1 }));
      await Promise.all([sql`select pg_sleep(0.05)`, sql`select pg_sleep(0.05)`]);
      // a query given to the second connection as the first's close is handled: its write is still
      // buffered when its own close comes in the same turn (driver-socket.test.ts does it in plain)
      const retried = queryOnNextClose(sql);
      await proxy.cut();
      assert.match(String(await retried), /CONNECTION_CLOSED/);
      await proxy.restore();
      for (let i = 0; i < 4; i += 1) {
        const started = performance.now();
        const [row] = await within(`query ${i + 1} after the return`, sql`select ${i}::int as i`);
        assert.equal(row?.i, i);
        const took = performance.now() - started;
        assert.ok(took < 2_000, `query ${i + 1} took ${Math.round(took)} ms`);
      }
      const rows = await within('two at once', Promise.all([sql`select 1 as n, pg_sleep(0.01)`, sql`select 2 as n`]));
      assert.deepEqual(
        rows.map((r) => r[0]?.n),
        [1, 2],
      );
      assert.ok(
        lines.some((line) => /held behind a closed socket/.test(String(line.msg))),
        'the case arose: a connection held its first message behind a closed socket',
      );
    });
  }

  it('a direct TLS pool answers many queries, a transaction and a 100 kB parameter', async () => {
    const front = await startDirectTlsPostgres(db.url);
    const sql = pool(front.url, 3);
    const rows = await within(
      'many queries over direct TLS',
      Promise.all(Array.from({ length: 100 }, (_, i) => sql`select ${i}::int as i`)),
    );
    assert.deepEqual(
      rows.map((r) => r[0]?.i),
      Array.from({ length: 100 }, (_, i) => i),
    );
    const id = 'direct-tls-tx';
    await within(
      'a transaction over direct TLS',
      sql.begin(async (tx) => {
        await tx`insert into driver_edges_probe values (${id})`;
      }),
    );
    assert.ok(await stored(id));
    const large = 'q'.repeat(100_000);
    const [echo] = await within('a 100 kB parameter over direct TLS', sql`select ${large}::text as t`);
    assert.equal(echo?.t, large);
  });
});

describe("other code's tls.connect", () => {
  /** Records a socket's 'error' and 'close' in order, and whether 'close' came inside the 'error' emit. */
  function recordEnd(socket: Socket) {
    const events: string[] = [];
    let inError = false;
    let closeInsideError = false;
    socket.on('error', () => {
      events.push('error');
      inError = true;
      queueMicrotask(() => (inError = false));
    });
    const closed = new Promise<void>((resolve) =>
      socket.on('close', (hadError: boolean) => {
        events.push(`close:${hadError}`);
        if (inError) closeInsideError = true;
        resolve();
      }),
    );
    return {
      events,
      closed,
      get closeInsideError() {
        return closeInsideError;
      },
    };
  }

  /** A plain server that resets every connection after `ms`. */
  async function resettingServer(ms: number) {
    const server = createServer((socket) => {
      socket.on('error', () => {});
      setTimeout(() => socket.resetAndDestroy(), ms);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => server.close(resolve)));
    return (server.address() as AddressInfo).port;
  }

  it('tls.connect over a socket of its own is not changed: close comes after the error, in a later turn', async () => {
    const port = await resettingServer(50);
    const raw = new Socket();
    raw.connect(port, '127.0.0.1');
    const secure = tls.connect({ socket: raw, rejectUnauthorized: false });
    assert.equal(Object.hasOwn(secure, 'emit'), false, 'its emit is TLSSocket’s own');
    const end = recordEnd(secure);
    await within('its close', end.closed);
    assert.deepEqual(end.events.slice(0, 1), ['error']);
    assert.equal(end.events.at(-1), 'close:true');
    assert.equal(end.closeInsideError, false, "close came inside the error's emit");
  });

  it('tls.connect by host and port is not changed either', async () => {
    const port = await resettingServer(50);
    const secure = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false });
    assert.equal(Object.hasOwn(secure, 'emit'), false);
    const end = recordEnd(secure);
    await within('its close', end.closed);
    assert.equal(end.events[0], 'error');
    assert.equal(end.closeInsideError, false);
  });

  it('an https request to a local TLS server answers and ends as usual', async () => {
    const http = createHttpServer((_, res) => res.end('hello'));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => http.close(resolve)));
    const front = await startTlsFront((http.address() as AddressInfo).port);
    cleanups.push(() => front.close());
    const body = await within(
      'the https request',
      new Promise<string>((resolve, reject) => {
        const req = httpsRequest(
          {
            host: '127.0.0.1',
            port: front.port,
            servername: 'hooks.example.test',
            ca: TLS_CERT,
            agent: false,
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => resolve(text));
          },
        );
        req.on('socket', (socket) => assert.equal(Object.hasOwn(socket, 'emit'), false));
        req.on('error', reject);
        req.end();
      }),
    );
    assert.equal(body, 'hello');
    assert.deepEqual(front.names, ['hooks.example.test']);
  });

  it("the driver's own TLS sockets are the ones made to end together", async () => {
    const front = await kept(startTlsPostgres(db.url));
    const made: TLSSocket[] = [];
    const connectTls = tls.connect;
    tls.connect = function (this: unknown, ...args: unknown[]) {
      const socket = (connectTls as (...a: unknown[]) => TLSSocket).apply(this, args);
      made.push(socket);
      return socket;
    } as typeof tls.connect;
    try {
      const sql = pool(front.url, 1);
      await within('a query over TLS', sql`select 1`);
    } finally {
      tls.connect = connectTls;
    }
    assert.equal(made.length, 1);
    assert.equal(Object.hasOwn(made[0] as TLSSocket, 'emit'), true);
  });
});

describe('driver sockets: nothing escaped', () => {
  it('no uncaught exception or unhandled rejection', async () => {
    // a turn of the event loop for anything the tests before left pending to surface
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(escaped.map(String), []);
  });
});

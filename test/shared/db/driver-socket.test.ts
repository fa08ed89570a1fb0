/**
 * The database connections of `connect()` after the server goes away and comes back: a
 * connection that closed with a write still buffered, and a server that refuses or drops
 * connections while it starts up, each answer the first queries after the server's return within
 * the reconnect backoff (at most 1 s), not after `connect_timeout` (5 s) or never.
 */
import assert from 'node:assert/strict';
import { connect as connectTo, createServer, type Server, type Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, type Sql } from '../../../shared/db/connect.ts';
import { isConnectionError } from '../../../shared/db/connection-errors.ts';
import { fromLastOpening } from '../../../shared/db/driver-socket.ts';
import { createLogger } from '../../../shared/log/logger.ts';
import { createTestDatabase } from '../../helpers/database.ts';
import { TLS_CERT, TLS_KEY } from '../../fixtures/tls.ts';
import { linesInto } from '../../helpers/logs.ts';
import { eventually } from '../../helpers/poll.ts';
import { errorResponse, queryOnNextClose } from '../../helpers/postgres-fronts.ts';
import { forward, listenInFront, startTcpProxy } from '../../helpers/tcp-proxy.ts';

const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** Bounded by the reconnect backoff's 1 s, with room for a loaded machine; `connect_timeout` is 5 s. */
const PROMPT_MS = 2_000;

/** Runs `query` and answers how long it took, failing the test on an error or past `PROMPT_MS`. */
async function promptly(what: string, query: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await query();
  const took = performance.now() - started;
  assert.ok(took < PROMPT_MS, `${what} took ${Math.round(took)} ms`);
  return took;
}

/**
 * A server in front of `target` that, until `ready()`, reads each connection's startup packet and
 * answers it as `mode` says (PostgreSQL's 57P03 and a close, or a bare close), then forwards.
 */
async function startingServer(target: string, mode: 'starting-up' | 'closes') {
  const upstream = new URL(target);
  let ready = false;
  let refused = 0;
  let refusedOne: () => void = () => {};
  const firstRefused = new Promise<void>((resolve) => (refusedOne = resolve));
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    if (!ready) {
      client.once('data', () => {
        refused += 1;
        refusedOne();
        if (mode === 'starting-up') client.end(errorResponse('57P03', 'the database system is starting up'));
        else client.end();
      });
      return;
    }
    const backend = forward(client, upstream);
    sockets.add(backend);
    backend.on('close', () => sockets.delete(backend));
  });
  const url = await listenInFront(server, target);
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return {
    url,
    firstRefused,
    get refused() {
      return refused;
    },
    ready: () => void (ready = true),
  };
}

describe('connect() after the database comes back', () => {
  it('a connection that closed with a write still buffered answers the next queries within the backoff, not after connect_timeout', async () => {
    const db = await createTestDatabase();
    const proxy = await startTcpProxy(db.url);
    cleanups.push(() => proxy.close());
    const lines: Record<string, unknown>[] = [];
    const config = db.configWith({ databaseUrl: proxy.url, logLevel: 'debug' });
    const sql: Sql = connect(config, createLogger(config, { name: 'test', destination: linesInto(lines) }), { max: 2 });
    cleanups.push(() => sql.end({ timeout: 1 }));
    // two connections open
    await Promise.all([sql`select pg_sleep(0.05)`, sql`select pg_sleep(0.05)`]);

    // A query sent as the first of them is seen closed (as a process retries a failed query at
    // once) goes to the other, whose close comes next in the same turn of the event loop: its
    // write is still buffered when it closes. The driver's `onclose` hook runs in that turn.
    const retried = queryOnNextClose(sql);
    await proxy.cut();
    assert.match(String(await retried), /CONNECTION_CLOSED/);
    await proxy.restore();

    // every connection of the pool, the one that held the buffered write included
    for (let i = 0; i < 4; i += 1) await promptly(`query ${i + 1} after the return`, () => sql`select ${i}::int`);
    await promptly('two at once', () => Promise.all([sql`select pg_sleep(0.01)`, sql`select pg_sleep(0.01)`]));
    assert.ok(
      lines.some((line) => /held behind a closed socket/.test(String(line.msg))),
      'the case arose: a connection held its startup message behind a closed socket',
    );
  });

  for (const mode of ['starting-up', 'closes'] as const) {
    it(`a server that ${mode === 'starting-up' ? 'answers 57P03 (starting up)' : 'closes after the startup packet'} and then is ready: the first query after it is ready answers promptly`, async () => {
      const db = await createTestDatabase();
      const server = await startingServer(db.url, mode);
      const sql: Sql = connect(db.configWith({ databaseUrl: server.url }), undefined, { max: 2 });
      cleanups.push(() => sql.end({ timeout: 1 }));
      const first = sql`select 1 as one`.then(
        (rows) => rows,
        (error: unknown) => error,
      );
      await server.firstRefused;
      const refused = (await first) as { code?: string };
      // a close without a word is told to the driver as an error, as a refused connection is
      assert.equal(
        refused.code,
        mode === 'starting-up' ? '57P03' : 'CONNECTION_CLOSED',
        'refused with the server’s answer, not a timeout',
      );
      server.ready();
      assert.ok(server.refused >= 1);
      await promptly('the next query', () => sql`select 2`);
      await promptly('two at once', () => Promise.all([sql`select 3`, sql`select 4`]));
    });
  }
});

/**
 * A server in front of `target` that closes each connection cleanly before its session starts:
 * at once (`accepts-and-closes`, a proxy whose database is down), or once the database has sent
 * everything of the start-up but its ReadyForQuery (`closes-before-ready`); over TLS as well
 * (`tls`: the handshake made, then the TLS session closed).
 */
async function closingFront(target: string, mode: 'accepts-and-closes' | 'closes-before-ready' | 'tls') {
  const upstream = new URL(target);
  let accepted = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    accepted += 1;
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    if (mode === 'accepts-and-closes') return void client.end();
    if (mode === 'tls') {
      client.once('data', () => {
        client.write('S');
        const secure = new TLSSocket(client, { isServer: true, key: TLS_KEY, cert: TLS_CERT });
        secure.on('error', () => client.destroy());
        secure.once('secure', () => secure.end());
      });
      return;
    }
    // passes the client's bytes on and the server's back, up to the start-up's ReadyForQuery
    const backend = connectTo(Number(upstream.port), upstream.hostname);
    sockets.add(backend);
    backend.on('error', () => backend.destroy());
    backend.on('close', () => sockets.delete(backend));
    client.on('data', (bytes: Buffer) => backend.write(bytes));
    let seen = Buffer.alloc(0);
    backend.on('data', (bytes: Buffer) => {
      seen = Buffer.concat([seen, bytes]);
      for (let at = 0; at + 5 <= seen.length; at += 1 + seen.readUInt32BE(at + 1)) {
        if (seen[at] !== 0x5a) continue;
        client.end(seen.subarray(0, at));
        backend.destroy();
        return;
      }
    });
  });
  const url = new URL(await listenInFront(server, target));
  if (mode === 'tls') url.searchParams.set('sslmode', 'require');
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return {
    url: url.toString(),
    get accepted() {
      return accepted;
    },
  };
}

describe('connect() to a server that closes connections before their session starts', () => {
  for (const mode of ['accepts-and-closes', 'closes-before-ready', 'tls'] as const) {
    it(`${mode}: each query fails with a connection error within the reconnect backoff, which paces the connections`, async () => {
      const db = await createTestDatabase();
      const front = await closingFront(db.url, mode);
      const sql: Sql = connect(db.configWith({ databaseUrl: front.url }), undefined, { max: 2 });
      cleanups.push(() => sql.end({ timeout: 1 }));
      const started = performance.now();
      let failed = 0;
      // queries asked one after another for a second and a half, as a process keeps asking
      while (performance.now() - started < 1_500) {
        const error = await Promise.race([
          sql`select 1`.then(
            () => 'answered',
            (e: unknown) => e,
          ),
          sleep(PROMPT_MS, 'still waiting', { ref: false }),
        ]);
        assert.ok(isConnectionError(error), `a connection error: ${String(error)}`);
        failed += 1;
      }
      assert.ok(failed >= 2, `${failed} queries failed`);
      // 50 ms doubling to 1 s between attempts: a handful in 1.5 s (the driver alone made hundreds)
      assert.ok(front.accepted <= 12, `${front.accepted} connections in 1.5 s`);
    });
  }

  it('a query cancelled on a healthy server is still cancelled (the server closes a cancel request’s connection without a word)', async () => {
    const db = await createTestDatabase();
    const sql: Sql = connect(db.config, undefined, { max: 1 });
    cleanups.push(() => sql.end({ timeout: 1 }));
    const query = sql`select pg_sleep(5)`;
    const outcome = query.then(
      () => 'answered',
      (e: { code?: string }) => e.code,
    );
    await eventually(
      async () =>
        (await db.sql`select 1 from pg_stat_activity where query = 'select pg_sleep(5)' and state = 'active'`).length >
        0,
      PROMPT_MS,
      'the query running',
    );
    await promptly('the cancel', () => Promise.resolve(query.cancel()));
    assert.equal(await outcome, '57014');
  });
});

describe('fromLastOpening', () => {
  const startup = (user: string) => {
    const body = Buffer.from(`user\0${user}\0database\0app\0\0`);
    const head = Buffer.alloc(8);
    head.writeUInt32BE(body.length + 8, 0);
    head.writeUInt32BE(196_608, 4);
    return Buffer.concat([head, body]);
  };
  const sslRequest = Buffer.from([0, 0, 0, 8, 4, 210, 22, 47]);
  const sync = Buffer.from([83, 0, 0, 0, 4]);

  it('keeps a lone startup message or TLS request as it is', () => {
    assert.equal(fromLastOpening(startup('app')).toString('hex'), startup('app').toString('hex'));
    assert.equal(fromLastOpening(sslRequest).toString('hex'), sslRequest.toString('hex'));
  });

  it('drops what precedes the last opening message (a closed connection’s unsent queries and startups)', () => {
    const held = Buffer.concat([sync, startup('app'), startup('app'), sslRequest]);
    assert.equal(fromLastOpening(held).toString('hex'), sslRequest.toString('hex'));
    const queries = Buffer.concat([sync, sync, startup('app')]);
    assert.equal(fromLastOpening(queries).toString('hex'), startup('app').toString('hex'));
  });

  it('sends bytes that end in no opening message as they are', () => {
    const other = Buffer.concat([startup('app'), sync]);
    assert.equal(fromLastOpening(other).toString('hex'), other.toString('hex'));
  });
});

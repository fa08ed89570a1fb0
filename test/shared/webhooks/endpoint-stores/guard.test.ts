/**
 * The guard of the endpoint stores (shared/webhooks/endpoint-stores/guard.ts): a store that
 * cannot be reached (refused connection, closed pool, no answer within the time limit) fails
 * the call with 503 APP_STORE_UNAVAILABLE naming the store, with Retry-After; what a store
 * refuses on purpose (a taken id) and bugs pass through unchanged. The errors the real drivers
 * give against a port nobody listens on are checked too, so the guard's tables follow them.
 */
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import mongoose from 'mongoose';
import mssql from 'mssql';
import { createPool } from 'mysql2/promise';
import { commitDeadline, withDeadline } from '../../../../shared/db/commit-deadline.ts';
import { AppError, conflict } from '../../../../shared/errors/app-error.ts';
import { createLogger } from '../../../../shared/log/logger.ts';
import {
  guardStore,
  isStoreUnreachable,
  STORE_RETRY_AFTER_SECONDS,
  STORE_TIME_LIMIT_MS,
  StoreTimeLimitError,
  storeUnavailable,
} from '../../../../shared/webhooks/endpoint-stores/guard.ts';
import { openStore as openPostgresqlStore } from '../../../../shared/webhooks/endpoint-stores/postgresql.ts';
import type { AdapterName, EndpointStore } from '../../../../shared/webhooks/endpoint-stores/types.ts';
import { testConfig } from '../../../helpers/database.ts';
import { duplicateIdError, inTestStore, socketError, storedEndpoint } from '../../../helpers/endpoint-store.ts';
import { linesInto } from '../../../helpers/logs.ts';
import { freePort } from '../../../helpers/ports.ts';

/** Every call of the interface but `close`, with arguments. */
const CALLS: [string, (store: EndpointStore) => Promise<unknown>][] = [
  ['install', (store) => store.install()],
  ['ping', (store) => store.ping()],
  ['get', (store) => store.get('ep_1')],
  ['getMany', (store) => store.getMany(['ep_1'])],
  ['list', (store) => store.list({})],
  ['subscribers', (store) => store.subscribers(null)],
  ['insert', (store) => store.insert(storedEndpoint('ep_1'))],
  ['update', (store) => store.update(storedEndpoint('ep_1', { version: 2 }), 1)],
  ['delete', (store) => store.delete('ep_1')],
];

/** Asserts `error` is the guard's 503 for the store `name` (`adapter`). */
function assertUnavailable(error: unknown, name: string, adapter: string): true {
  assert.ok(error instanceof AppError, `an AppError, got ${String(error)}`);
  assert.equal(error.status, 503);
  assert.equal(error.code, 'APP_STORE_UNAVAILABLE');
  assert.equal(error.message, `endpoint store "${name}" (${adapter}) did not answer`);
  assert.deepEqual(error.headers, { 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) });
  assert.deepEqual(error.data, { store: name, adapter, retryAfter: STORE_RETRY_AFTER_SECONDS });
  assert.equal(error.expose, true);
  assert.ok(error.cause, 'the store’s own error is kept as the cause');
  return true;
}

/** A store made in the test whose every call runs `run` (a real driver's query). */
function driverStore(name: string, adapter: AdapterName, run: () => Promise<unknown>): EndpointStore {
  const store = inTestStore(name, adapter);
  const query = async () => {
    await run();
    return null as never;
  };
  return {
    ...store,
    install: query,
    ping: query,
    get: query,
    getMany: query,
    list: query,
    subscribers: query,
    insert: query,
    update: query,
    delete: query,
  };
}

describe('guard: a store that cannot be reached', () => {
  it('turns a refused connection into 503 APP_STORE_UNAVAILABLE with Retry-After, on every call', async () => {
    const refused = socketError('ECONNREFUSED');
    const store = guardStore(inTestStore('registry', 'mysql', refused));
    assert.equal(store.name, 'registry');
    assert.equal(store.adapter, 'mysql');
    for (const [what, call] of CALLS) {
      await assert.rejects(call(store), (error) => assertUnavailable(error, 'registry', 'mysql'), what);
    }
    await assert.rejects(store.get('ep_1'), (error) => (error as Error).cause === refused);
  });

  it('turns a call that does not answer within the time limit into the same 503 (five seconds by default)', async () => {
    assert.equal(STORE_TIME_LIMIT_MS, 5000);
    const store = guardStore(inTestStore('registry', 'mongoose', 'hang'), { timeoutMs: 150 });
    for (const [what, call] of CALLS) {
      const started = performance.now();
      await assert.rejects(call(store), (error) => assertUnavailable(error, 'registry', 'mongoose'), what);
      const waited = performance.now() - started;
      assert.ok(waited >= 140 && waited < 2000, `${what} gave up after ${waited} ms`);
    }
    await assert.rejects(store.get('ep_1'), (error) => (error as Error).cause instanceof StoreTimeLimitError);
  });

  it('answers normally while the store answers, and again once it is back', async () => {
    const inner = inTestStore('registry', 'mysql');
    const store = guardStore(inner);
    await store.insert(storedEndpoint('ep_1'));
    inner.behave(socketError('ECONNRESET', 'read ECONNRESET'));
    await assert.rejects(store.get('ep_1'), (error) => assertUnavailable(error, 'registry', 'mysql'));
    inner.behave('answer');
    assert.equal((await store.get('ep_1'))?.id, 'ep_1');
    assert.equal(await store.update(storedEndpoint('ep_1', { version: 2 }), 1), true);
    assert.equal(await store.update(storedEndpoint('ep_1', { version: 2 }), 1), false, 'a lost race is an answer');
  });

  it('logs a store that does not answer at most once every ten seconds, saying how many it kept quiet about', async () => {
    const lines: Record<string, unknown>[] = [];
    const log = createLogger(testConfig(null, { logLevel: 'error' }), { name: 'test', destination: linesInto(lines) });
    let now = 1_000_000;
    const store = guardStore(inTestStore('registry', 'mssql', socketError('ECONNREFUSED')), {
      log,
      now: () => now,
    });
    for (let i = 0; i < 5; i++) await assert.rejects(store.list({}));
    now += 10_000;
    await assert.rejects(store.get('ep_1'));
    assert.equal(lines.length, 2);
    assert.equal(lines[0].msg, 'endpoint store "registry" (mssql) did not answer: list');
    assert.equal(lines[0].store, 'registry');
    assert.equal(lines[0].adapter, 'mssql');
    assert.equal(lines[1].msg, 'endpoint store "registry" (mssql) did not answer: get (4 more since the last line)');
  });
});

describe('guard: what passes through unchanged', () => {
  it('a duplicate id from insert', async () => {
    const store = guardStore(inTestStore('registry', 'mysql'));
    await store.insert(storedEndpoint('ep_1'));
    await assert.rejects(store.insert(storedEndpoint('ep_1')), (error) => {
      assert.equal((error as { code?: string }).code, 'ER_DUP_ENTRY');
      assert.ok(!(error instanceof AppError));
      return true;
    });
  });

  it('the very error object of a refusal, a bug, or an AppError the store threw on purpose', async () => {
    for (const thrown of [duplicateIdError('ep_1'), new TypeError('x is not a function'), conflict('taken')]) {
      const store = guardStore(inTestStore('registry', 'mysql', thrown));
      await assert.rejects(store.get('ep_1'), (error) => error === thrown);
    }
  });

  it('close, which is never limited nor turned into a 503', async () => {
    const inner = inTestStore('registry', 'mysql', 'hang');
    await guardStore(inner, { timeoutMs: 10 }).close();
    assert.equal(inner.closed, 1);
  });

  it("everything of a store on the service's own pool: its outage is the database's (APP_DATABASE_UNAVAILABLE)", async () => {
    const refused = socketError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432');
    const store = guardStore(inTestStore('default', 'postgresql', refused), { servicePool: true });
    await assert.rejects(store.get('ep_1'), (error) => error === refused);
    // and no time limit of the guard's: the pool's connect timeout and the request timeout bound it
    const slow = inTestStore('default', 'postgresql');
    const slowGet = slow.get;
    slow.get = (id) => new Promise((resolve) => setTimeout(() => resolve(slowGet(id)), 80));
    assert.equal(await guardStore(slow, { servicePool: true, timeoutMs: 20 }).get('ep_1'), null);
  });
});

describe("guard: a request's writes claim its commit (shared/db/commit-deadline.ts)", () => {
  /** The in-test store with the number of calls its write methods received. */
  function countingStore() {
    const inner = inTestStore('registry', 'mysql');
    const writes = { insert: 0, update: 0, delete: 0 };
    for (const method of ['insert', 'update', 'delete'] as const) {
      const original = inner[method] as (...args: unknown[]) => Promise<unknown>;
      (inner as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
        writes[method] += 1;
        return original(...args);
      };
    }
    return { inner, writes };
  }

  it('a write after the deadline passed is refused with 503 APP_REQUEST_TIMEOUT, never reaching the adapter; a read still goes', async () => {
    const { inner, writes } = countingStore();
    const store = guardStore(inner);
    await store.insert(storedEndpoint('ep_1')); // outside a request: written
    const deadline = commitDeadline();
    assert.equal(deadline.expire(), true);
    const timedOut = (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.status, 503);
      assert.equal(error.code, 'APP_REQUEST_TIMEOUT');
      return true;
    };
    await withDeadline(deadline, async () => {
      await assert.rejects(store.insert(storedEndpoint('ep_2')), timedOut);
      await assert.rejects(store.update(storedEndpoint('ep_1', { version: 2 }), 1), timedOut);
      await assert.rejects(store.delete('ep_1'), timedOut);
      assert.equal((await store.get('ep_1'))?.version, 1, 'a read is no commit: it goes');
      assert.equal((await store.list({})).total, 1);
    });
    assert.deepEqual(writes, { insert: 1, update: 0, delete: 0 }, 'only the write outside the request reached it');
    assert.equal(await inner.get('ep_2'), null);
  });

  it('a write claimed in time is made, and the timeout then waits for the answer', async () => {
    const { inner, writes } = countingStore();
    const store = guardStore(inner);
    const deadline = commitDeadline();
    await withDeadline(deadline, () => store.insert(storedEndpoint('ep_1')));
    assert.equal(deadline.expire(), false);
    assert.equal(writes.insert, 1);
    assert.equal((await inner.get('ep_1'))?.id, 'ep_1');
  });

  it('a read claims nothing: the request can still time out after it', async () => {
    const store = guardStore(inTestStore('registry', 'mysql'));
    const deadline = commitDeadline();
    await withDeadline(deadline, async () => {
      await store.get('ep_1');
      await store.getMany(['ep_1']);
      await store.subscribers(null);
      await store.ping();
    });
    assert.equal(deadline.expire(), true);
  });
});

describe('guard: the errors real drivers give when the store cannot be reached', () => {
  let closedPort: number;
  let silent: Server;
  let silentPort: number;
  const sockets = new Set<Socket>();
  before(async () => {
    closedPort = await freePort();
    silent = createServer((socket) => sockets.add(socket)); // accepts, never answers
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentPort = (silent.address() as { port: number }).port;
  });
  after(() => {
    for (const socket of sockets) socket.destroy();
    silent.close();
  });

  it('postgresql (a store with its own url): a refused connection is 503 naming the store', async () => {
    const store = await openPostgresqlStore({
      name: 'archive',
      options: { adapter: 'postgresql', url: `postgres://app@127.0.0.1:${closedPort}/hooks` },
      table: 'app_webhooks',
    });
    try {
      await assert.rejects(guardStore(store).get('ep_1'), (error) => assertUnavailable(error, 'archive', 'postgresql'));
    } finally {
      await store.close();
    }
  });

  it('mysql2: a refused connection, a closed pool, and a server that never answers the handshake', async () => {
    const pool = createPool({ host: '127.0.0.1', port: closedPort, user: 'app', connectTimeout: 2000 });
    const refused = guardStore(driverStore('registry', 'mysql', () => pool.query('select 1')));
    await assert.rejects(refused.get('ep_1'), (error) => assertUnavailable(error, 'registry', 'mysql'));
    await pool.end();
    await assert.rejects(refused.list({}), (error) => {
      assert.match(String((error as Error).cause), /Pool is closed/);
      return assertUnavailable(error, 'registry', 'mysql');
    });

    const hanging = createPool({ host: '127.0.0.1', port: silentPort, user: 'app', connectTimeout: 10_000 });
    try {
      const store = guardStore(
        driverStore('registry', 'mysql', () => hanging.query('select 1')),
        { timeoutMs: 200 },
      );
      await assert.rejects(store.get('ep_1'), (error) => assertUnavailable(error, 'registry', 'mysql'));
    } finally {
      for (const socket of sockets) socket.destroy(); // lets the pool's pending connection fail, so it can end
      await hanging.end().catch(() => {});
    }
  });

  it('mssql: a refused connection', async () => {
    const pool = new mssql.ConnectionPool({
      server: '127.0.0.1',
      port: closedPort,
      user: 'app',
      password: 'x',
      connectionTimeout: 2000,
      options: { trustServerCertificate: true },
    });
    const store = guardStore(driverStore('ledger', 'mssql', () => pool.connect()));
    await assert.rejects(store.get('ep_1'), (error) => assertUnavailable(error, 'ledger', 'mssql'));
    await pool.close().catch(() => {});
  });

  it('mongoose: no server to select', async () => {
    const connection = mongoose.createConnection(`mongodb://127.0.0.1:${closedPort}/hooks`, {
      serverSelectionTimeoutMS: 200,
    });
    const store = guardStore(driverStore('docs', 'mongoose', () => connection.asPromise()));
    await assert.rejects(store.get('ep_1'), (error) => assertUnavailable(error, 'docs', 'mongoose'));
    await connection.close().catch(() => {});
  });
});

describe('isStoreUnreachable', () => {
  const named = (name: string, extra: Record<string, unknown> = {}) =>
    Object.assign(new Error(name), extra, { name }) as Error;

  it('knows the drivers’ ways of saying the store cannot be reached, also wrapped (Drizzle, mssql)', () => {
    for (const error of [
      socketError('ECONNREFUSED'),
      socketError('ETIMEDOUT'),
      Object.assign(new Error('write CONNECTION_ENDED'), { code: 'CONNECTION_ENDED' }), // postgres
      Object.assign(new Error('Connection lost'), { code: 'PROTOCOL_CONNECTION_LOST' }), // mysql2
      new Error('Pool is closed.'), // mysql2
      Object.assign(new Error('Too many connections'), { code: 'ER_CON_COUNT_ERROR' }), // mysql2
      named('ConnectionError', { code: 'ESOCKET' }), // mssql
      named('RequestError', { code: 'ETIMEOUT' }), // mssql: a request's own timeout
      named('MongoServerSelectionError'),
      named('MongoNetworkError'),
      named('MongoTopologyClosedError'),
      new Error('Operation `app_webhooks.findOne()` buffering timed out after 10000ms'), // mongoose
      Object.assign(new Error('Lock file is already being held'), { code: 'ELOCKED' }), // disk
      new Error('Failed query: select 1', { cause: socketError('ECONNREFUSED') }), // drizzle
      new StoreTimeLimitError('endpoint store "x" (get)', 5000),
    ]) {
      assert.equal(isStoreUnreachable(error), true, String(error));
    }
  });

  it('does not take a refusal of the call for an outage', () => {
    for (const error of [
      duplicateIdError('ep_1'),
      Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' }),
      named('MongoServerError', { code: 11000 }),
      named('RequestError', { code: 'EREQUEST' }),
      Object.assign(new Error("ENOENT: no such file or directory, open '/x'"), { code: 'ENOENT' }),
      new TypeError('x is not a function'),
      'a string',
      undefined,
    ]) {
      assert.equal(isStoreUnreachable(error), false, String(error));
    }
  });

  it('storeUnavailable names the store and its adapter', () => {
    assertUnavailable(storeUnavailable({ name: 'r', adapter: 'disk' }, new Error('x')), 'r', 'disk');
  });
});

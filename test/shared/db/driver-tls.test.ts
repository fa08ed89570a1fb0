/**
 * The database connections of `connect()` over TLS (`sslmode=require`): the TLS socket the driver
 * makes over the service's own socket tells the driver of its end as its error and its close
 * together, as a plain connection's does (driver-errors.test.ts), so a write given to the
 * connection right after the error runs on the next session or rejects, never resolving without
 * having run.
 */
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import tls, { TLSSocket } from 'node:tls';
import { connect, type Sql } from '../../../shared/db/connect.ts';
import { TLS_CERT, TLS_KEY } from '../../fixtures/tls.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { forward, listenInFront } from '../../helpers/tcp-proxy.ts';

/** PostgreSQL's SSLRequest code (protocol 3.0). */
const SSL_REQUEST = 80_877_103;

let db: TestDatabase;
const cleanups: (() => Promise<unknown>)[] = [];
before(async () => {
  db = await createTestDatabase();
  await db.sql`create table driver_tls_probe (id text primary key)`;
});
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/**
 * PostgreSQL's TLS in front of the test database: answers an SSLRequest with `S`, then speaks
 * TLS with the test certificate and passes the plain protocol on. `reset()` closes every client
 * connection with a TCP RST; `secured` counts the connections that asked for TLS.
 */
async function startTlsPostgres(target: string) {
  const upstream = new URL(target);
  const raws = new Set<Socket>();
  let secured = 0;
  const server: Server = createServer((raw) => {
    raws.add(raw);
    raw.on('close', () => raws.delete(raw));
    raw.on('error', () => raw.destroy());
    raw.once('data', (first: Buffer) => {
      if (first.length !== 8 || first.readUInt32BE(4) !== SSL_REQUEST) return raw.destroy();
      raw.pause();
      secured += 1;
      raw.write('S');
      const secure = new TLSSocket(raw, { isServer: true, key: TLS_KEY, cert: TLS_CERT });
      secure.on('error', () => raw.destroy());
      forward(secure, upstream);
    });
  });
  const url = new URL(await listenInFront(server, target));
  url.searchParams.set('sslmode', 'require');
  cleanups.push(async () => {
    for (const raw of raws) raw.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return {
    url: url.toString(),
    get secured() {
      return secured;
    },
    reset() {
      for (const raw of raws) raw.resetAndDestroy();
    },
  };
}

/** Resolves once a TLS socket the driver made has emitted its 'error'. */
function tlsErrored(): Promise<void> {
  const connectTls = tls.connect;
  return new Promise<void>((resolve) => {
    tls.connect = function (this: unknown, ...args: unknown[]) {
      const made = (connectTls as (...a: unknown[]) => TLSSocket).apply(this, args);
      made.prependListener('error', () => resolve());
      return made;
    } as typeof tls.connect;
  }).finally(() => {
    tls.connect = connectTls;
  });
}

async function stored(id: string): Promise<boolean> {
  return (await db.sql`select 1 from driver_tls_probe where id = ${id}`).length === 1;
}

describe('connect() over TLS when a connection is reset', () => {
  for (const max of [1, 2]) {
    it(`a write issued right after the TLS socket's error rejects or was stored, and the pool answers after (max ${max})`, async () => {
      const front = await startTlsPostgres(db.url);
      const errored = tlsErrored();
      const sql: Sql = connect(db.configWith({ databaseUrl: front.url }), undefined, { max });
      cleanups.push(() => sql.end({ timeout: 1 }));
      await sql`select 1`;
      assert.ok(front.secured >= 1, 'the connection asked for TLS');
      front.reset();
      await errored;
      const id = `tls-between-${max}`;
      const write = sql`insert into driver_tls_probe values (${id})`.then(
        () => 'resolved' as const,
        () => 'rejected' as const,
      );
      let answered = false;
      for (let round = 0; round < 3 && !answered; round += 1) {
        answered = await sql`select 1`.then(
          () => true,
          () => false,
        );
      }
      assert.ok(answered, 'the pool answers after the reset');
      let timer: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([
        write,
        new Promise<'hung'>((resolve) => (timer = setTimeout(resolve, 8_000, 'hung'))),
      ]).finally(() => clearTimeout(timer));
      assert.notEqual(outcome, 'hung', 'the write hung');
      if (outcome === 'resolved') assert.ok(await stored(id), 'the write resolved but its row was never stored');
    });
  }
});

/**
 * The database connections of `connect()` over TLS (`sslmode=require`): the TLS socket the driver
 * makes over the service's own socket tells the driver of its end as its error and its close
 * together, as a plain connection's does (driver-errors.test.ts), so a write given to the
 * connection right after the error runs on the next session or rejects, never resolving without
 * having run.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import tls, { type TLSSocket } from 'node:tls';
import { connect, type Sql } from '../../../shared/db/connect.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { startTlsPostgres } from '../../helpers/postgres-fronts.ts';

let db: TestDatabase;
const cleanups: (() => Promise<unknown>)[] = [];
before(async () => {
  db = await createTestDatabase();
  await db.sql`create table driver_tls_probe (id text primary key)`;
});
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

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
      cleanups.push(() => front.close());
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

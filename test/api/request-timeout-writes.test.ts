/**
 * A write whose request timed out (503) did not happen, whatever the write (docs/reliability.md,
 * "A timed-out request did not happen"): an endpoint registration, a delivery resend, and a change
 * of an endpoint kept in another store (MariaDB), over REST and GraphQL. Each is held where it writes by a lock of the
 * test until its 503 has been received, then let go: nothing is written afterwards, and the retry
 * with the same `Idempotency-Key` writes it once.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import postgres from 'postgres';
import { openStore as openMysqlStore } from '../../shared/webhooks/endpoint-stores/mysql.ts';
import { quoteIdentifier } from '../../shared/webhooks/endpoint-stores/mysql.ts';
import { createMariaDatabase } from '../helpers/mariadb.ts';
import { eventually } from '../helpers/poll.ts';
import { endpoint, send } from '../worker/helpers.ts';
import { type Answer, call, closeAll, startApi, type ApiHarness } from './webhooks-api/helpers.ts';

/** Short enough that a request held on a lock times out at once, as in request-timeout-emit.test.ts. */
const REQUEST_TIMEOUT_MS = 300;

/**
 * Holds `table` of the app's database in `mode` from a connection of the test while `during`
 * runs, then lets go, and waits until no statement of the web process is left running or in a
 * transaction: what the held request still does after its 503 has been done.
 */
async function holdingTable<T>(app: ApiHarness, table: string, mode: string, during: () => Promise<T>): Promise<T> {
  const blocker = postgres(app.db.url, { max: 1, onnotice: () => {} });
  try {
    const result = await blocker.begin(async (tx) => {
      await tx.unsafe(`lock table ${table} in ${mode} mode`);
      return during();
    });
    await eventually(
      async () => {
        const [{ busy }] = await blocker<{ busy: number }[]>`
          select count(*)::int as busy from pg_stat_activity
           where datname = current_database() and pid <> pg_backend_pid()
             and state in ('active', 'idle in transaction') and query ilike '%app_%'`;
        return busy === 0;
      },
      10_000,
      'the held request to finish',
    );
    return result as T;
  } finally {
    await blocker.end();
  }
}

/** Sends `send` again while it is answered 503, as a client would (a loaded machine may time out a retry too). */
async function untilServed(send: () => Promise<Answer>): Promise<Answer> {
  let answer = await send();
  for (let tries = 1; answer.status === 503 && tries < 20; tries += 1) answer = await send();
  return answer;
}

describe('timed-out writes did not happen', () => {
  after(closeAll); // the servers stop before the databases are dropped

  it('an endpoint registration answered 503 is not written afterwards, and its retry with the same key writes it once', async () => {
    const app = await startApi({ requestTimeout: REQUEST_TIMEOUT_MS });
    const token = await app.token('admin');
    const register = () =>
      call('POST', `${app.api}/webhooks`, {
        token,
        body: { url: 'https://127.0.0.1/late', events: ['order.*'] },
        headers: { 'Idempotency-Key': 'timeout-register-1' },
      });
    const endpoints = async () => {
      const [row] = await app.db.sql<{ records: number; gates: number }[]>`
        select (select count(*)::int from app_webhooks) as records,
               (select count(*)::int from app_endpoint_gate) as gates`;
      return { ...row };
    };
    // the record's insert waits on the test's lock (share mode: reads go on) past the deadline
    await holdingTable(app, 'app_webhooks', 'share', async () => {
      const answer = await register();
      assert.equal(answer.status, 503, answer.text);
    });
    await eventually(async () => (await endpoints()).gates === 0, 10_000, 'the gate row to be taken back');
    assert.deepEqual(await endpoints(), { records: 0, gates: 0 }, 'nothing committed after the 503');

    const registered = await untilServed(register);
    assert.equal(registered.status, 201, registered.text);
    const again = await register();
    assert.equal(again.status, 201, again.text);
    assert.equal(again.body.externalId, registered.body.externalId, 'the stored answer, not a second endpoint');
    assert.deepEqual(await endpoints(), { records: 1, gates: 1 });
  });

  it('a registration whose commit was claimed before the deadline is answered for real, however late, and is written once', async () => {
    const app = await startApi({ requestTimeout: REQUEST_TIMEOUT_MS });
    const token = await app.token('admin');
    // A deferred trigger of the test's own makes the record's commit wait on an advisory lock the
    // test holds: the work has claimed its commit and sent it when the deadline passes.
    const KEY = 727_900;
    await app.db.sql.unsafe(`
      create function test_commit_hold() returns trigger language plpgsql as $$
      begin perform pg_advisory_xact_lock(${KEY}); return null; end $$;
      create constraint trigger test_commit_hold after insert on app_webhooks
        deferrable initially deferred for each row execute function test_commit_hold();`);
    const holder = postgres(app.db.url, { max: 1, onnotice: () => {} });
    await holder`select pg_advisory_lock(${KEY})`;
    const answering = call('POST', `${app.api}/webhooks`, {
      token,
      body: { url: 'https://127.0.0.1/committed', events: ['order.*'] },
    });
    await eventually(
      async () => {
        const [{ held }] = await holder<{ held: number }[]>`
          select count(*)::int as held from pg_stat_activity
           where datname = current_database() and wait_event_type = 'Lock' and query ilike 'commit%'
             and now() - query_start > ${REQUEST_TIMEOUT_MS * 2} * interval '1 millisecond'`;
        return held === 1;
      },
      10_000,
      'the commit to wait past the deadline',
    );
    await holder`select pg_advisory_unlock(${KEY})`;
    await holder.end();
    const answer = await answering;
    assert.equal(answer.status, 201, `the real answer, not a 503 for a write that happened: ${answer.text}`);
    const [{ records }] = await app.db.sql<{ records: number }[]>`select count(*)::int as records from app_webhooks`;
    assert.equal(records, 1);
  });

  it('a delivery resend answered 503 is not queued afterwards, and its retry with the same key queues it once', async () => {
    const app = await startApi({ requestTimeout: REQUEST_TIMEOUT_MS });
    const token = await app.token('admin');
    // set up through the core: a delivery made done, as the worker would leave it
    const target = await endpoint(app.h, 'https://127.0.0.1/resent');
    const [id] = await send(app.h, target);
    await app.db.sql`update app_webhook_deliveries set status = 'done', completed_at = now() where id = ${id}`;
    const status = async () =>
      (await app.db.sql<{ status: string }[]>`select status from app_webhook_deliveries where id = ${id}`)[0].status;
    const resend = () =>
      call('POST', `${app.api}/deliveries/${id}/resend`, {
        token,
        headers: { 'Idempotency-Key': 'timeout-resend-1' },
      });
    // the resend's update waits on the test's lock (share mode: its reads go on) past the deadline
    await holdingTable(app, 'app_webhook_deliveries', 'share', async () => {
      const answer = await resend();
      assert.equal(answer.status, 503, answer.text);
    });
    assert.equal(await status(), 'done', 'nothing committed after the 503');

    // a resend that had been written would make this one 409 APP_WEBHOOK_DELIVERY_IN_FLIGHT
    const resent = await untilServed(resend);
    assert.equal(resent.status, 202, resent.text);
    assert.equal(await status(), 'pending');
    const again = await resend();
    assert.equal(again.status, 202, `the stored answer, not a second resend: ${again.text}`);
  });

  it('a change of an endpoint kept in another store, answered 503 while it read the store, never reaches the store', async () => {
    const maria = await createMariaDatabase();
    const table = 'app_webhooks';
    const store = await openMysqlStore({ name: 'registry', options: { adapter: 'mysql', url: maria.url }, table });
    await store.install();
    await store.close();
    const app = await startApi({
      requestTimeout: REQUEST_TIMEOUT_MS,
      stores: { registry: { adapter: 'mysql', url: maria.url } },
      webhooks: { store: 'registry' },
    });
    const token = await app.token('admin');
    const created = await untilServed(() =>
      call('POST', `${app.api}/webhooks`, { token, body: { url: 'https://127.0.0.1/kept', events: ['*'] } }),
    );
    assert.equal(created.status, 201, created.text);
    const id = created.body.externalId as string;
    const change = () =>
      call('PATCH', `${app.api}/webhooks/${id}`, {
        token,
        body: { description: 'changed late' },
        headers: { 'Idempotency-Key': 'timeout-change-1' },
      });
    const stored = async () => {
      const [row] = await maria.rows(`SELECT description, version FROM ${quoteIdentifier(table)} WHERE id = ?`, [id]);
      return { description: row.description as string | null, version: Number(row.version) };
    };
    // A lock of the test's own session on the table holds the change's read of the record in
    // MariaDB, where the request's cancel does not reach: the read goes on after the 503 and
    // hands the change on to the store's write, which must not happen.
    await maria.admin.query(`USE ${quoteIdentifier(maria.name)}`);
    await maria.admin.query(`LOCK TABLES ${quoteIdentifier(table)} WRITE`);
    try {
      const answer = await change();
      assert.equal(answer.status, 503, answer.text);
    } finally {
      await maria.admin.query('UNLOCK TABLES');
    }
    // the read now answers: the change reaches the guard, which refuses its write
    await eventually(
      () => app.logs.some((line) => line.includes('by its timeout stopped') && line.includes('"APP_REQUEST_TIMEOUT"')),
      10_000,
      'the held change to be refused',
    );
    assert.deepEqual(await stored(), { description: null, version: 1 }, 'the store never got the write');

    const changed = await untilServed(change);
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.description, 'changed late');
    assert.equal((await change()).status, 200);
    assert.deepEqual(await stored(), { description: 'changed late', version: 2 }, 'written once');

    // the same rule through GraphQL: the core decides, not the face
    // GraphQL answers a refused field in its own result, so the work ends either way
    const refusals = () => app.logs.filter((line) => line.includes('answered 503 by its timeout')).length;
    const before = refusals();
    await maria.admin.query(`LOCK TABLES ${quoteIdentifier(table)} WRITE`);
    try {
      const answer = await call('POST', `${app.base}/_app/gql`, {
        token,
        headers: { Accept: 'application/json' },
        body: {
          query: 'mutation($id: ID!) { updateWebhookEndpoint(id: $id, input: {description: "by graphql"}) { id } }',
          variables: { id },
        },
      });
      assert.equal(answer.status, 503, answer.text);
      assert.equal(answer.body.code, 'APP_REQUEST_TIMEOUT');
    } finally {
      await maria.admin.query('UNLOCK TABLES');
    }
    await eventually(() => refusals() > before, 10_000, 'the held GraphQL change to end');
    assert.deepEqual(
      await stored(),
      { description: 'changed late', version: 2 },
      'the store never got the GraphQL write',
    );
  });
});

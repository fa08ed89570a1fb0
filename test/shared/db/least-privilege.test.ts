/**
 * The service needs no superuser: run by a role that only owns its database, as managed
 * PostgreSQL services give one (no superuser, no CREATEDB, no CREATEROLE; `public` as PostgreSQL
 * 15 and later leave it), `app migrate`, the web process and the worker as deployed, a delivery,
 * readiness, the queue metrics and `app audit` all work, and so do the retention prune's
 * partition work (made, dropped, rewritten and swapped), the recovery sweep and the cancel of a
 * timed-out request's statement. A role owning only a schema named after it, with CREATE on a
 * database of another's, migrates and delivers too. A role short of a privilege is told which and
 * what to do: `app migrate` without CREATE, and processes granted the tables without owning them
 * (graphile-worker's row security hides every job from such a role), which are not ready and
 * whose worker ends at once (docs/operations.md "Database privileges").
 */
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { createWebServer } from '../../../api/server.ts';
import { MIGRATIONS_DIR, migrate } from '../../../shared/db/migrate.ts';
import { readQueueFigures } from '../../../shared/metrics/queue-gauges.ts';
import { newDeliveryId, newEventId } from '../../../shared/webhooks/ids.ts';
import { prune } from '../../../shared/webhooks/retention.ts';
import { sweep } from '../../../worker/heartbeat.ts';
import { createToken } from '../../../shared/tokens/tokens.ts';
import { call, closeAll, receiver } from '../../api/webhooks-api/helpers.ts';
import { cliEnvironment, runAppInProcess } from '../../helpers/cli.ts';
import {
  operatorToken,
  startWebProcess,
  startWorkerProcess,
  stopDeployment,
  type DeployedWeb,
} from '../../helpers/deployment.ts';
import { createOwnedDatabase, type OwnedDatabase } from '../../helpers/owned-database.ts';
import { testConfig } from '../../helpers/database.ts';
import { startWorker } from '../../../worker/runner.ts';
import { tasks } from '../../../worker/tasks/index.ts';
import { eventually } from '../../helpers/poll.ts';
import { lockTable } from '../../helpers/table-lock.ts';
import { endpoint, harness, jobRows, runOnce, send, settled } from '../../worker/helpers.ts';

const APP_SECRET = 'least privilege test application secret of 32+ characters';
const METRICS_TOKEN = 'least-privilege-metrics-token';
const DAY = 86_400_000;

const migrationCount = async () => (await readdir(MIGRATIONS_DIR)).filter((name) => /^\d+_.*\.sql$/.test(name)).length;

/** `app migrate` as the role, asserted to succeed. */
async function migrateAsRole(db: OwnedDatabase): Promise<string> {
  const run = await runAppInProcess(['migrate'], cliEnvironment(db.url, { APP_SECRET }));
  assert.equal(run.code, 0, `app migrate as ${db.role}: ${run.stderr}`);
  return run.stdout;
}

/** The relations, functions and schemas of the service in `db` that its role does not own. */
async function ownedByOthers(db: OwnedDatabase): Promise<string[]> {
  const rows = await db.admin<{ name: string }[]>`
    select c.oid::regclass::text as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast') and c.relowner <> ${db.role}::regrole
    union all
    select p.oid::regprocedure::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace
     where n.nspname not in ('pg_catalog', 'information_schema') and p.proowner <> ${db.role}::regrole
    union all
    select nspname::text from pg_namespace where nspname = 'graphile_worker' and nspowner <> ${db.role}::regrole`;
  return rows.map((row) => row.name);
}

/** A Monday (00:00 UTC) three weeks or more ahead: its weeks get weekly partitions of their own. */
function mondayAhead(): number {
  const ahead = new Date(Date.now() + 21 * DAY);
  return Date.UTC(ahead.getUTCFullYear(), ahead.getUTCMonth(), ahead.getUTCDate() + ((8 - ahead.getUTCDay()) % 7));
}

describe('a role that only owns its database (no superuser, no CREATEDB, no CREATEROLE), as deployed', () => {
  let db: OwnedDatabase;
  let web: DeployedWeb;
  let token: string;
  before(async () => {
    db = await createOwnedDatabase('owner');
    await migrateAsRole(db);
    const env = {
      DATABASE_URL: db.url,
      APP_SECRET,
      APP_METRICS__TOKEN: METRICS_TOKEN,
      // as in production: the migrate step made the tables, the processes only use them
      APP_WEBHOOKS__INSTALL: 'false',
    };
    web = await startWebProcess(env);
    await startWorkerProcess(env);
    token = await operatorToken(db.url, APP_SECRET);
  });
  after(async () => {
    await stopDeployment();
    await closeAll();
  });

  /** Registers an endpoint at `url` for tenant `owner` over the API, emits an event to it; the delivery ids. */
  async function emitTo(url: string, owner: string): Promise<string[]> {
    const created = await call('POST', `${web.base}/api/v1/webhooks`, {
      token,
      body: { url, events: ['order.*'], owner },
    });
    assert.equal(created.status, 201, created.text);
    const emitted = await call('POST', `${web.base}/api/v1/events`, {
      token,
      body: { type: 'order.created', data: { order: 1 }, owner },
    });
    assert.equal(emitted.status, 202, emitted.text);
    return emitted.body.deliveryIds as string[];
  }

  it('is what managed services give: no superuser powers, public owned by pg_database_owner', async () => {
    const [role] = await db.admin<{ rolsuper: boolean; rolcreatedb: boolean; rolcreaterole: boolean }[]>`
      select rolsuper, rolcreatedb, rolcreaterole from pg_roles where rolname = ${db.role}`;
    assert.deepEqual(role, { rolsuper: false, rolcreatedb: false, rolcreaterole: false });
    const [publicSchema] = await db.admin<{ owner: string }[]>`
      select nspowner::regrole::text as owner from pg_namespace where nspname = 'public'`;
    assert.equal(publicSchema.owner, 'pg_database_owner');
  });

  it('app migrate applied every migration and the queue schema, all owned by the role; a second run has nothing to do', async () => {
    const [{ applied }] = await db.admin<{ applied: number }[]>`select count(*)::int as applied from app_migrations`;
    assert.equal(applied, await migrationCount());
    assert.deepEqual(await ownedByOthers(db), []);
    assert.match(await migrateAsRole(db), /^database is up to date/);
  });

  it('readiness answers 200 and an emitted event is delivered by the worker', async () => {
    assert.equal((await call('GET', `${web.base}/readyz`)).status, 200);
    assert.equal((await call('GET', `${web.base}/livez`)).status, 200);
    const hook = await receiver();
    const [deliveryId] = await emitTo(hook.url, 'acme');
    await eventually(
      () => hook.requests.find((request) => request.headers['webhook-id'] === deliveryId),
      20_000,
      'the delivery at the receiver',
    );
  });

  it('the queue gauges read the queue: a delivery its receiver refuses counts in app_queue_depth', async () => {
    const hook = await receiver();
    hook.answer(503);
    await emitTo(hook.url, 'refused');
    const scrape = await fetch(`${web.base}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
    assert.equal(scrape.status, 200);
    const text = await scrape.text();
    const depth = /^app_queue_depth\{[^}]*\} (\d+)$/m.exec(text);
    assert.ok(depth !== null && Number(depth[1]) >= 1, text);
  });

  it('app audit reads the database', async () => {
    const run = await runAppInProcess(['audit', '--json'], cliEnvironment(db.url, { APP_SECRET }));
    assert.equal(JSON.parse(run.stdout).database, 'checked', run.stdout + run.stderr);
  });
});

describe('a role that only owns its database: the work the processes do in the background', () => {
  let db: OwnedDatabase;
  before(async () => {
    db = await createOwnedDatabase('owner');
    await migrate({ config: db.config, log: db.log });
  });

  it('the retention prune makes weekly partitions, drops one whole and rewrites another (new tables, indexes, vacuum, swap)', async () => {
    const h = harness(db);
    const ep = await endpoint(h, 'http://127.0.0.1:9/retention');
    const base = mondayAhead();
    await db.sql`select app_delivery_partitions_ensure(${new Date(base + 14 * DAY)})`;
    const row = async (status: string, offsetDays: number) => {
      const time = base + offsetDays * DAY;
      const [id, event] = [newDeliveryId(time), newEventId(time)];
      await db.sql`insert into app_events (id, type, payload, created_at) values (${event}, 'order.created', '{}', ${new Date(time)})`;
      await db.sql`
        insert into app_webhook_deliveries (id, event_id, endpoint_id, event_type, queue, body, status, created_at)
        values (${id}, ${event}, ${ep.id}, 'order.created', 'webhooks', '{}', ${status}, ${new Date(time)})`;
      return id;
    };
    const dropped = await row('done', 1);
    const [gone, kept] = [await row('done', 8), await row('pending', 9)];
    const result = await prune(
      { config: h.config, sql: db.sql, log: h.log },
      { now: base + 60 * DAY, budgetMs: Infinity },
    );
    assert.equal(result.done, 3 - 1, 'the two done deliveries');
    const left = await db.sql<
      { id: string }[]
    >`select id from app_webhook_deliveries where id in (${dropped}, ${gone}, ${kept})`;
    assert.deepEqual(
      left.map((r) => r.id),
      [kept],
    );
    assert.deepEqual(await ownedByOthers(db), [], "every table the prune made is the role's");
  });

  it('the recovery sweep unlocks the jobs of a dead worker pool', async () => {
    const h = harness(db, { worker: { staleAfter: '1s' } });
    const ep = await endpoint(h, 'http://127.0.0.1:9/recovery');
    const before = (await readQueueFigures(db.sql)).depth;
    const [id] = await send(h, ep);
    await db.sql`
      update graphile_worker._private_jobs set locked_by = 'pool-gone', locked_at = now() - interval '1 minute', attempts = attempts + 1
       where key = ${id}`;
    const result = await sweep(h);
    assert.ok(result.stalePools.includes('pool-gone'), JSON.stringify(result));
    const [job] = await jobRows(h, id);
    assert.equal(job.locked_by, null);
    assert.equal((await readQueueFigures(db.sql)).depth, before + 1, 'the queue figures of the metrics count it');
  });

  it("a timed-out request's statement is cancelled on the server", async () => {
    const h = harness(db, { requestTimeout: '500ms' });
    const web = createWebServer({ config: h.config, log: h.log });
    try {
      const base = `http://127.0.0.1:${(await web.start(0)).port}`;
      const apiToken = (await createToken({ sql: db.sql, log: db.log }, { name: 'cancel', role: 'admin' })).token;
      const lock = await lockTable(db.url, 'app_events');
      try {
        const listing = await call('GET', `${base}/api/v1/events`, { token: apiToken });
        assert.equal(listing.status, 503, listing.text);
        await eventually(
          async () => {
            const [{ n }] = await db.admin<{ n: number }[]>`
              select count(*)::int as n from pg_stat_activity
               where datname = current_database() and usename = ${db.role} and state = 'active'
                 and wait_event_type = 'Lock'`;
            return n === 0;
          },
          5_000,
          'the blocked statement to be cancelled while the lock is still held',
        );
      } finally {
        await lock.release();
      }
    } finally {
      await web.shutdown('test');
    }
  });
});

describe('a role owning only a schema named after it, with CREATE on a database of another', () => {
  it('migrates (its tables in its schema, none in public) and delivers', async () => {
    const db = await createOwnedDatabase('schema');
    await migrateAsRole(db);
    const [{ inPublic }] = await db.admin<{ inPublic: number }[]>`
      select count(*)::int as "inPublic" from pg_class where relnamespace = 'public'::regnamespace`;
    assert.equal(inPublic, 0);
    assert.deepEqual(await ownedByOthers(db), []);
    const h = harness(db);
    const hook = await receiver();
    const ep = await endpoint(h, hook.url);
    const [id] = await send(h, ep);
    await runOnce(h);
    assert.equal((await settled(h, id)).status, 'done');
  });
});

describe('a role short of a privilege is told which, and what to do', () => {
  it('app migrate by a role that may not create in the database exits 1 saying what the migrations need', async () => {
    const db = await createOwnedDatabase('connect');
    const run = await runAppInProcess(['migrate'], cliEnvironment(db.url));
    assert.equal(run.code, 1, run.stderr);
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
    assert.match(
      run.stderr,
      /^app: the table of applied migrations could not be created: permission denied for schema public \(app migrate needs a role that owns the database, or has CREATE on it and owns a schema first on its search_path: docs\/operations\.md "Database privileges"\)/,
    );
  });

  describe('processes run as a role granted the tables but not owning them', () => {
    let db: OwnedDatabase;
    let url: string;
    const runtime = () => `${db.role}_rt`;
    before(async () => {
      db = await createOwnedDatabase('owner');
      await migrate({ config: db.config, log: db.log });
      await db.admin.unsafe(`create role ${runtime()} login`);
      for (const schema of ['public', 'graphile_worker']) {
        await db.admin.unsafe(`grant usage on schema ${schema} to ${runtime()}`);
        await db.admin.unsafe(`grant select, insert, update, delete on all tables in schema ${schema} to ${runtime()}`);
        await db.admin.unsafe(`grant usage on all sequences in schema ${schema} to ${runtime()}`);
      }
      const at = new URL(db.url);
      at.username = runtime();
      url = at.toString();
    });
    after(async () => {
      await db.admin.unsafe(`drop owned by ${runtime()}`);
      await db.admin.unsafe(`drop role ${runtime()}`);
    });

    it('the web process is not ready, saying the role does not own the job queue', async () => {
      const config = testConfig(url);
      const web = createWebServer({ config, log: db.log });
      try {
        const base = `http://127.0.0.1:${(await web.start(0)).port}`;
        const ready = await call('GET', `${base}/readyz`);
        assert.equal(ready.status, 503);
        assert.equal(
          ready.body.reason,
          `the database role ${runtime()} does not own the job queue (owned by ${db.role}), whose row security hides every job from it: run the processes as the role that ran app migrate (it owns the tables), or a member of it`,
        );
      } finally {
        await web.shutdown('test');
      }
    });

    it('the worker does not start, saying the same, where it restarted its runner forever', async () => {
      const config = testConfig(url);
      await assert.rejects(startWorker({ config, log: db.log }, tasks), (error: Error) => {
        assert.equal(error.name, 'RolePrivilegeError');
        assert.match(error.message, /^the job runner cannot start: the database role \S+ does not own the job queue/);
        return true;
      });
    });

    it('made a member of the owning role, it is ready', async () => {
      await db.admin.unsafe(`grant ${db.role} to ${runtime()}`);
      const web = createWebServer({ config: testConfig(url), log: db.log });
      try {
        const base = `http://127.0.0.1:${(await web.start(0)).port}`;
        const ready = await call('GET', `${base}/readyz`);
        assert.equal(ready.status, 200, ready.text);
      } finally {
        await web.shutdown('test');
        await db.admin.unsafe(`revoke ${db.role} from ${runtime()}`);
      }
    });
  });
});

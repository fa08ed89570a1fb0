/**
 * A backup as deployers take one (docs/operations.md "Backups"): `pg_dump -Fc` of a live
 * database while its worker delivers, restored with `pg_restore --no-owner --no-acl` into a new
 * database owned by another role that is no superuser, as on a managed PostgreSQL. The service
 * comes back whole: the deliveries in flight at the dump are sent again (same `webhook-id`,
 * signatures that verify) as a crashed worker's are, retries keep their time, dead ones stay
 * dead, `app migrate` has nothing to do, new records take new ids, tokens, sessions and the
 * shared store's entries hold, and the hourly prune works on the restored partitions.
 *
 * pg_dump refuses a server newer than itself, so this runs on the PostgreSQL at 127.0.0.1:5432
 * (CI starts the machine's PostgreSQL 15 there, with its pg_dump and pg_restore), as
 * test/shared/db/oldest-server.test.ts does; without both the file skips, saying why.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import postgres from 'postgres';
import { Webhook } from 'standardwebhooks';
import { OPERATOR } from '../../../shared/access/actor.ts';
import type { AccountDeps } from '../../../shared/accounts/deps.ts';
import { resolveSession, startSession } from '../../../shared/accounts/sessions.ts';
import { createUser } from '../../../shared/accounts/users.ts';
import { connect } from '../../../shared/db/connect.ts';
import { migrate } from '../../../shared/db/migrate.ts';
import { createLogger } from '../../../shared/log/logger.ts';
import { postgresEntries } from '../../../shared/stores/postgres.ts';
import { createToken, verifyToken } from '../../../shared/tokens/tokens.ts';
import { prune } from '../../../shared/webhooks/retention.ts';
import { startWorker, type WorkerHandle } from '../../../worker/runner.ts';
import { tasks } from '../../../worker/tasks/index.ts';
import { closeAll, receiver, type Receiver } from '../../api/webhooks-api/helpers.ts';
import { cliEnvironment, runAppInProcess, type CliRun } from '../../helpers/cli.ts';
import { testConfig, type TestDatabase } from '../../helpers/database.ts';
import { eventually } from '../../helpers/poll.ts';
import { startReceiver, type Receiver as RawReceiver } from '../../worker/delivery/receiver.ts';
import { deliveryRow, endpoint, FAST, flags, type Harness, jobRows, send, settled } from '../../worker/helpers.ts';

const run = promisify(execFile);
const SERVER = 'postgres://postgres@127.0.0.1:5432/postgres';
const APP_SECRET = 'backup and restore test application secret, 32+ characters';
const DAY = 86_400_000;
/** The workers' settings: a held attempt outlives the dump; a failed one is retried 5 s later. */
const SETTINGS = flags(FAST, { webhooks: { timeout: '30s', backoff: { base: '5s', max: '1m', jitter: 0 } } });
/**
 * The restored worker's: the defaults of crash recovery, so that what it recovers at once it
 * recovers by the dumped worker's liveness lock being held by nobody, not by its heartbeat's age.
 */
const RESTORED = flags(SETTINGS, { worker: { heartbeat: '10s', staleAfter: '45s' } });

/** The major release of a client binary (`pg_dump --version`), or why it cannot be used. */
async function clientMajor(binary: string): Promise<number | string> {
  try {
    const { stdout } = await run(binary, ['--version']);
    const major = /\(PostgreSQL\) (\d+)/.exec(stdout);
    return major ? Number(major[1]) : `${binary} --version answered ${stdout.trim()}`;
  } catch (error) {
    return `no ${binary} found (${(error as Error).message.split('\n')[0]})`;
  }
}

/** Why this file cannot run here, or false. */
async function probe(): Promise<string | false> {
  const admin = postgres(SERVER, { max: 1, connect_timeout: 3, onnotice: () => {} });
  let server: number;
  try {
    [{ server }] = await admin<
      { server: number }[]
    >`select current_setting('server_version_num')::int / 10000 as server`;
  } catch (error) {
    return `no PostgreSQL answers at 127.0.0.1:5432 as postgres (${(error as Error).message})`;
  } finally {
    await admin.end({ timeout: 1 });
  }
  for (const binary of ['pg_dump', 'pg_restore']) {
    const major = await clientMajor(binary);
    if (typeof major === 'string') return major;
    if (major < server) return `${binary} ${major} cannot dump or restore the PostgreSQL ${server} at 127.0.0.1:5432`;
  }
  return false;
}

const skip = await probe();

/** A database on the server owned by a role of its own (no superuser, no CREATEDB, no CREATEROLE). */
interface Owned {
  name: string;
  role: string;
  url: string;
  h: Harness;
}

describe('pg_dump -Fc while the worker delivers, pg_restore --no-owner --no-acl into a database of another role', () => {
  const server = postgres(SERVER, { max: 1, onnotice: () => {} });
  const made: Owned[] = [];
  const pools: postgres.Sql[] = [];
  const workers: WorkerHandle[] = [];
  const startOn = async (h: Harness) => {
    const handle = await startWorker({ config: h.config, log: h.log }, tasks);
    workers.push(handle);
    return handle;
  };
  let folder = '';
  /** The receiver holding attempts in flight: its held answers are given in `after` should a step fail. */
  const hold = { holding: false, waiting: [] as ServerResponse[], after: new Map<string, number>() } as {
    receiver?: RawReceiver;
    holding: boolean;
    waiting: ServerResponse[];
    /** How many times each `webhook-id` arrived once the restore began. */
    after: Map<string, number>;
  };

  async function owned(label: string, settings: Record<string, unknown>): Promise<Owned> {
    const suffix = randomBytes(5).toString('hex');
    const role = `app_backup_${label}_${suffix}`;
    const name = `app_backup_${label}_${suffix}`;
    await server.unsafe(`create role ${role} login nosuperuser nocreatedb nocreaterole nobypassrls`);
    await server.unsafe(`create database ${name} owner ${role}`);
    const url = `postgres://${role}@127.0.0.1:5432/${name}`;
    const config = testConfig(url, settings, { APP_SECRET });
    const log = createLogger({ ...config, logLevel: 'error' }, { name: `test-${label}` });
    const sql = connect(config, log, { max: 4 });
    pools.push(sql);
    const h: Harness = { db: { url, name, sql, config, log } as TestDatabase, config, sql, log };
    const db = { name, role, url, h };
    made.push(db);
    return db;
  }

  after(async () => {
    if (skip) return;
    hold.holding = false;
    for (const res of hold.waiting.splice(0)) res.end('ok');
    for (const handle of workers) await handle.stop();
    await closeAll();
    for (const sql of pools) await sql.end({ timeout: 5 });
    for (const db of made) {
      await server.unsafe(`drop database if exists ${db.name} with (force)`);
      await server.unsafe(`drop role if exists ${db.role}`);
    }
    await server.end({ timeout: 5 });
    await hold.receiver?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  /** What the source held at the dump, and what the restore did. */
  const at = {} as {
    source: Owned;
    restored: Owned;
    ok: { ep: Awaited<ReturnType<typeof endpoint>>; ids: string[]; hook: Receiver };
    retried: {
      ep: Awaited<ReturnType<typeof endpoint>>;
      id: string;
      hook: Receiver;
      due: Date;
      /** Its job's time in the source at the dump, and in the restored database before its worker started. */
      jobRunAt: Date;
      restoredRunAt: Date | undefined;
    };
    dead: { id: string; hook: Receiver };
    held: {
      eps: Awaited<ReturnType<typeof endpoint>>[];
      ids: string[];
      runRows: number;
      running: number;
      locked: number;
    };
    maxJobId: bigint;
    token: string;
    cookie: string;
    dumpBytes: number;
    dumpMs: number;
    restoreMs: number;
    restore: { code: number; stderr: string };
    ownedByOthers: string[];
    migrate: CliRun;
    audit: CliRun;
    restoredWorker: WorkerHandle;
    startedAt: number;
    workerStartedAt: number;
  };

  before(async () => {
    if (skip) return;
    folder = await mkdtemp(join(tmpdir(), 'app-backup-'));
    const source = await owned('source', SETTINGS);
    await migrate({ config: source.h.config, log: source.h.log });
    const sourceWorker = await startOn(source.h);

    // done before the dump
    const okHook = await receiver();
    const okEp = await endpoint(source.h, okHook.url);
    const okIds = [...(await send(source.h, okEp)), ...(await send(source.h, okEp))];
    for (const id of okIds) assert.equal((await settled(source.h, id)).status, 'done');

    // dead before the dump: a redirect is not followed
    const deadHook = await receiver();
    deadHook.answer(302);
    const [deadId] = await send(source.h, await endpoint(source.h, deadHook.url));
    assert.equal((await settled(source.h, deadId)).status, 'dead');

    // in flight at the dump: one endpoint known to answer quickly (its attempts hold run rows),
    // one new (its deliveries marked running), both held unanswered by the receiver
    let restoring = false;
    hold.receiver = await startReceiver((req, res) => {
      const id = String(req.headers['webhook-id']);
      if (restoring) hold.after.set(id, (hold.after.get(id) ?? 0) + 1);
      if (hold.holding) hold.waiting.push(res);
      else res.end('ok');
    });
    const quick = await endpoint(source.h, `${hold.receiver.origin}/quick`);
    const [warm] = await send(source.h, quick);
    assert.equal((await settled(source.h, warm)).status, 'done');
    const fresh = await endpoint(source.h, `${hold.receiver.origin}/fresh`);
    hold.holding = true;
    const heldIds = [
      ...(await send(source.h, quick)),
      ...(await send(source.h, quick)),
      ...(await send(source.h, fresh)),
      ...(await send(source.h, fresh)),
    ];
    await eventually(() => hold.waiting.length === heldIds.length, 15_000, 'every held attempt at the receiver');

    // failed once, its retry due 5 s after its attempt
    const retryHook = await receiver();
    retryHook.answer(503);
    const retryEp = await endpoint(source.h, retryHook.url);
    const [retryId] = await send(source.h, retryEp);
    const failed = await eventually(
      async () => {
        const row = await deliveryRow(source.h, retryId);
        return row?.attempts === 1 && row.status === 'pending' && row.next_attempt_at !== null ? row : undefined;
      },
      10_000,
      'the first attempt failed and its retry scheduled',
    );
    const [retryJob] = await jobRows(source.h, retryId);

    // what the rest of the service keeps
    const token = (await createToken({ sql: source.h.sql, log: source.h.log }, { name: 'kept', role: 'admin' })).token;
    const accounts: AccountDeps = { config: source.h.config, sql: source.h.sql, log: source.h.log, now: Date.now };
    const user = await createUser(accounts, OPERATOR, {
      email: 'backup@example.com',
      role: 'admin',
      password: 'a backup passphrase long enough',
    });
    const { cookie } = await startSession(accounts, user.id);
    await postgresEntries(source.h.sql).set('backup:kept', { kept: true }, DAY);

    const [runs] = await source.h.sql<{ runs: number; running: number; locked: number; max: string }[]>`
      select (select count(*) from app_delivery_runs)::int as runs,
             (select count(*) from app_webhook_deliveries where status = 'running')::int as running,
             (select count(*) from graphile_worker.jobs where locked_by is not null)::int as locked,
             (select max(id) from graphile_worker._private_jobs)::text as max`;

    // the dump, as the database's own role, while the attempts are held
    const file = join(folder, 'backup.dump');
    let began = performance.now();
    await run('pg_dump', ['-Fc', '--dbname', source.url, '--file', file]);
    const dumpMs = performance.now() - began;
    const dumpBytes = (await stat(file)).size;

    // the source goes on and stops: its held attempts answered, its worker drained
    hold.holding = false;
    for (const res of hold.waiting.splice(0)) res.end('ok');
    await sourceWorker.stop();

    const restored = await owned('restored', RESTORED);
    restoring = true;
    retryHook.answer(200);
    began = performance.now();
    const restore = await run('pg_restore', ['--no-owner', '--no-acl', '--dbname', restored.url, file]).then(
      ({ stderr }) => ({ code: 0, stderr }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );
    const restoreMs = performance.now() - began;
    const [restoredRetryJob] = await jobRows(restored.h, retryId);
    const ownedByOthers = (
      await restored.h.sql<{ name: string }[]>`
        select c.oid::regclass::text as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
         where n.nspname in ('public', 'graphile_worker') and c.relowner <> current_user::regrole
        union all
        select p.oid::regprocedure::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace
         where n.nspname in ('public', 'graphile_worker') and p.proowner <> current_user::regrole
        union all
        select nspname::text from pg_namespace where nspname = 'graphile_worker' and nspowner <> current_user::regrole`
    ).map((row) => row.name);
    const env = cliEnvironment(restored.url, { APP_SECRET });
    const migrated = await runAppInProcess(['migrate'], env);
    const audit = await runAppInProcess(['audit', '--json'], env);
    const startedAt = performance.now();
    const workerStartedAt = Date.now();
    const restoredWorker = await startOn(restored.h);

    Object.assign(at, {
      source,
      restored,
      ok: { ep: okEp, ids: okIds, hook: okHook },
      retried: {
        ep: retryEp,
        id: retryId,
        hook: retryHook,
        due: failed.next_attempt_at,
        jobRunAt: retryJob.run_at,
        restoredRunAt: restoredRetryJob?.run_at,
      },
      dead: { id: deadId, hook: deadHook },
      held: { eps: [quick, fresh], ids: heldIds, runRows: runs.runs, running: runs.running, locked: runs.locked },
      maxJobId: BigInt(runs.max),
      token,
      cookie,
      dumpBytes,
      dumpMs,
      restoreMs,
      restore,
      ownedByOthers,
      migrate: migrated,
      audit,
      restoredWorker,
      startedAt,
      workerStartedAt,
    });
  });

  it('the dump held attempts in flight: jobs locked, run rows and running deliveries', { skip }, () => {
    assert.ok(at.held.locked >= at.held.ids.length, JSON.stringify(at.held));
    assert.ok(at.held.runRows >= 1, `run rows at the dump: ${at.held.runRows}`);
    assert.ok(at.held.running >= 1, `running deliveries at the dump: ${at.held.running}`);
  });

  it('pg_restore --no-owner --no-acl as a role that is no superuser exits 0 and prints nothing', { skip }, (t) => {
    t.diagnostic(
      `dump ${at.dumpBytes} bytes in ${Math.round(at.dumpMs)} ms, restore in ${Math.round(at.restoreMs)} ms`,
    );
    assert.deepEqual(at.restore, { code: 0, stderr: '' });
    assert.deepEqual(
      at.ownedByOthers,
      [],
      "every relation, function and schema of the service is the restoring role's",
    );
  });

  it('app migrate on the restored database has nothing to do; app audit opens every sealed value', { skip }, () => {
    assert.equal(at.migrate.code, 0, at.migrate.stderr);
    assert.match(at.migrate.stdout, /^database is up to date/);
    assert.equal(at.audit.code, 0, at.audit.stdout + at.audit.stderr);
    const report = JSON.parse(at.audit.stdout) as { database: string; findings: { id: string }[] };
    assert.equal(report.database, 'checked');
    assert.deepEqual(
      report.findings.filter((finding) => finding.id.startsWith('secrets.')),
      [],
    );
  });

  it('the deliveries in flight at the dump are sent again by the restored worker, signed, and done', {
    skip,
  }, async (t) => {
    const h = at.restored.h;
    for (const id of at.held.ids) await settled(h, id, ['done'], 20_000);
    const took = performance.now() - at.startedAt;
    t.diagnostic(`every delivery in flight at the dump done ${Math.round(took)} ms after the restored worker started`);
    assert.ok(
      took < 5_000,
      `${Math.round(took)} ms: at once, as a restart recovers a killed worker's jobs, not after staleAfter (45 s)`,
    );
    const [quick, fresh] = at.held.eps;
    for (const [index, id] of at.held.ids.entries()) {
      assert.equal(hold.after.get(id), 1, `${id} sent once after the restore`);
      const again = hold.receiver?.requests.findLast((request) => request.headers['webhook-id'] === id);
      assert.ok(again);
      const secret = (index < 2 ? quick : fresh).secret; // two to each, in that order
      new Webhook(secret).verify(again.body.toString('utf8'), again.headers as Record<string, string>);
    }
    const [{ runs }] = await h.sql<{ runs: number }[]>`select count(*)::int as runs from app_delivery_runs`;
    assert.equal(runs, 0, 'no run row of the dumped worker is left');
  });

  it('a retry keeps its time; done and dead deliveries are not sent again', { skip }, async (t) => {
    const h = at.restored.h;
    assert.equal(at.retried.restoredRunAt?.getTime(), at.retried.jobRunAt.getTime(), "the job's time restored");
    const row = await settled(h, at.retried.id, ['done'], 20_000);
    assert.equal(row.attempts, 2);
    const request = at.retried.hook.requests.at(-1);
    assert.ok(request);
    new Webhook(at.retried.ep.secret).verify(request.body, request.headers as Record<string, string>);
    const [second] = await h.sql<{ started_at: Date }[]>`
      select started_at from app_webhook_attempts where delivery_id = ${at.retried.id} and attempt = 2`;
    assert.ok(
      second.started_at >= at.retried.due,
      `sent at ${second.started_at.toISOString()}, due ${at.retried.due.toISOString()}`,
    );
    t.diagnostic(
      `the retry sent ${second.started_at.getTime() - at.retried.due.getTime()} ms after its time, which came ${at.retried.due.getTime() - at.workerStartedAt} ms after the restored worker started`,
    );
    assert.equal(at.ok.hook.requests.length, at.ok.ids.length, 'done deliveries are not sent again');
    assert.equal(at.dead.hook.requests.length, 1, 'the dead delivery is not sent again');
    assert.equal((await deliveryRow(h, at.dead.id))?.status, 'dead');
  });

  it('new endpoints, events and jobs after the restore take new ids and are delivered', { skip }, async () => {
    const h = at.restored.h;
    const hook = await receiver();
    const ep = await endpoint(h, hook.url);
    const [id] = await send(h, ep, 'order.created', { after: 'restore' });
    const [job] = await jobRows(h, id);
    assert.ok(BigInt(job.id) > at.maxJobId, `job ${job.id} after the dump's ${at.maxJobId}`);
    assert.equal((await settled(h, id, ['done'])).status, 'done');
    new Webhook(ep.secret).verify(hook.requests[0].body, hook.requests[0].headers as Record<string, string>);
    const [again] = await send(h, at.ok.ep);
    assert.equal((await settled(h, again, ['done'])).status, 'done');
  });

  it('API tokens, sessions and the shared store entries made before the dump hold after it', { skip }, async () => {
    const h = at.restored.h;
    assert.ok(await verifyToken({ sql: h.sql, log: h.log }, at.token));
    const accounts: AccountDeps = { config: h.config, sql: h.sql, log: h.log, now: Date.now };
    assert.ok(await resolveSession(accounts, at.cookie));
    assert.deepEqual(await postgresEntries(h.sql).get('backup:kept'), { kept: true });
  });

  it("the hourly prune makes the weeks ahead and prunes the restored partitions' rows", { skip }, async () => {
    const h = at.restored.h;
    const partitions = async () =>
      (
        await h.sql<{ n: number }[]>`
        select count(*)::int as n from pg_inherits where inhparent = 'app_webhook_deliveries'::regclass`
      )[0].n;
    const before = await partitions();
    const result = await prune(
      { config: h.config, sql: h.sql, log: h.log },
      { now: Date.now() + 60 * DAY, budgetMs: Infinity },
    );
    assert.ok((await partitions()) > before, 'partitions made ahead');
    assert.ok(result.done >= at.ok.ids.length, JSON.stringify(result));
  });
});

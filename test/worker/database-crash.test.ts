/**
 * PostgreSQL itself crashes (SIGKILL of the postmaster: no shutdown, no checkpoint) in the middle
 * of emits and deliveries, and starts again on the same data directory and port, running its
 * crash recovery. The promises of docs/reliability.md checked against it: every emit answered
 * 202 before the crash has each of its deliveries received at least once (by `webhook-id`); an
 * emit that failed meanwhile was answered 503 `APP_DATABASE_UNAVAILABLE` (and what it stored, if
 * its commit went through all the same, is whole and delivered too); every delivery ends `done`,
 * with its attempts recorded; the unlogged run rows (`app_delivery_runs`, migration 029) are
 * emptied by the recovery and no slot is left counted for an attempt that died with the server
 * (a later batch to the same endpoints drains); and the same worker process carries on, its
 * runner started again by its supervisor, without a restart.
 *
 * The server is a cluster of this file's own (the suite's shared one must not crash), with the
 * durable settings of production (fsync, full_page_writes and synchronous_commit on), so what a
 * crash may lose is what it loses in production: the worker's claims and attempt records, which
 * commit without waiting for the WAL flush, and the unlogged table.
 *
 * At the crash, deliveries are in every state: done; in flight at the receiver, held unanswered
 * (to an endpoint known to answer quickly, its slots held by run rows, and to a new one, held to
 * `webhooks.endpointConcurrency`); parked behind that cap; queued; and emits arriving without
 * pause.
 */
import assert from 'node:assert/strict';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { startCluster, type Cluster } from '../../deploy/local/embedded-postgres.ts';
import { createWebServer } from '../../api/server.ts';
import { OPERATOR } from '../../shared/access/actor.ts';
import { connect } from '../../shared/db/connect.ts';
import { migrate } from '../../shared/db/migrate.ts';
import { createLogger } from '../../shared/log/logger.ts';
import { createToken } from '../../shared/tokens/tokens.ts';
import { registerEndpoint } from '../../shared/webhooks/endpoints/index.ts';
import { startWorker } from '../../worker/runner.ts';
import { tasks } from '../../worker/tasks/index.ts';
import { testConfig } from '../helpers/database.ts';
import { surviveDriverCrashAsProcessesDo } from '../helpers/driver-crash.ts';
import { emitOverRest, type EmitAnswer } from '../helpers/emits.ts';
import { linesInto } from '../helpers/logs.ts';
import { eventually } from '../helpers/poll.ts';
import { startReceiver } from './delivery/receiver.ts';
import { FAST, flags } from './helpers.ts';

/** The cap of an endpoint not known to answer quickly: of the held endpoint's 10 deliveries, 4 go and 6 park. */
const CAP = 4;
/** Clients emitting without pause, through the crash. */
const CLIENTS = 2;
/** How long an emit may take to be answered, the database away or not (it fails within a second then). */
const ANSWER_MS = 10_000;

const cleanups: (() => Promise<unknown>)[] = [];

after(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

// ---------------------------------------------------------------------------------------------
// A durable PostgreSQL of this file's own, restartable on its data directory and port

const folder = await mkdtemp(join(tmpdir(), 'app-pgcrash-'));
await chmod(folder, 0o755); // PostgreSQL may run as another user (when the tests run as root)
cleanups.push(() => rm(folder, { recursive: true, force: true }));
const dataDir = join(folder, 'postgres');
const logFile = join(folder, 'postgres.log');
/** Production's settings, spelled out: the cluster of the suite (`fast`) turns them off. */
const DURABLE = ['fsync=on', 'full_page_writes=on', 'synchronous_commit=on'];
let cluster: Cluster = await startCluster({ dataDir, logFile, settings: DURABLE });
cleanups.push(() => cluster.stop());
const url = await cluster.database('crash');

const lines: Record<string, unknown>[] = [];
const config = testConfig(
  url,
  flags(FAST, {
    // emits as fast as they are answered
    rateLimit: false,
    worker: { outageLimit: '60s' },
    // held deliveries stay in flight until released: a long attempt timeout, room for all of them
    webhooks: { timeout: '20s', concurrency: 16, endpointConcurrency: CAP, maxAttempts: 10 },
  }),
);
const log = createLogger(config, { name: 'test', destination: linesInto(lines) });
surviveDriverCrashAsProcessesDo(log); // as the processes do: a connection lost mid-write can trip the driver's known crash
await migrate({ config, log });
const sql = connect(config, log, { max: 2, name: 'test' });
cleanups.push(() => sql.end({ timeout: 1 }));

/** Whether process `pid` is gone (EPERM would be a live process of another user's). */
const gone = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
  return false;
};

/** Kills the postmaster outright (its pid from `postmaster.pid`), and waits until it is gone. */
async function crashPostgres(): Promise<void> {
  const pid = Number((await readFile(join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  assert.ok(pid > 0 && !gone(pid), 'the postmaster runs');
  process.kill(pid, 'SIGKILL');
  await eventually(() => gone(pid), 10_000, 'the postmaster gone');
}

/**
 * Starts PostgreSQL again on the same data directory and port: it runs its crash recovery. A start
 * fails while backends of the killed server still hold its shared memory (they exit as they notice
 * the postmaster gone), and is tried again until they have.
 */
async function restartPostgres(): Promise<void> {
  cluster = await eventually(
    () => startCluster({ dataDir, logFile, settings: DURABLE, port: cluster.port }).catch(() => undefined),
    30_000,
    'PostgreSQL started again on its data directory',
    100,
  );
}

// ---------------------------------------------------------------------------------------------
// The receiver: `/quick` and `/held` keep their requests unanswered while held; `/flow` answers at once

type Held = 'quick' | 'held';
const holding: Record<Held, boolean> = { quick: false, held: false };
const heldAnswers: Record<Held, (() => void)[]> = { quick: [], held: [] };
const receiver = await startReceiver((req, res) => {
  const path = (req.url ?? '').slice(1) as Held;
  if (holding[path]) heldAnswers[path].push(() => res.end('ok'));
  else res.end('ok');
});
cleanups.push(() => receiver.close());
const hold = (path: Held) => void (holding[path] = true);
const release = (path: Held) => {
  holding[path] = false;
  for (const answer of heldAnswers[path].splice(0)) answer();
};
const received = () => new Set(receiver.requests.map((request) => String(request.headers['webhook-id'])));

// ---------------------------------------------------------------------------------------------
// The web process and the worker

const web = createWebServer({ config, log });
cleanups.push(() => web.shutdown('test'));
const base = `http://127.0.0.1:${(await web.start(0)).port}`;
const { token } = await createToken({ sql, log }, { name: 'crash', role: 'admin' });
const headers = { authorization: `Bearer ${token}`, accept: 'application/json', 'content-type': 'application/json' };

const worker = await startWorker({ config, log }, tasks);
cleanups.push(() => worker.stop({ force: true }));
let workerEnded: unknown;
worker.ended.then(
  () => (workerEnded ??= 'stopped'),
  (error: unknown) => (workerEnded = error),
);

/** One endpoint for every event at `path` of the receiver, its tenant of its own. */
async function endpointAt(path: string) {
  const owner = `tenant-crash-${path}`;
  const registered = await registerEndpoint({ config, sql, log }, OPERATOR, {
    url: `${receiver.origin}/${path}`,
    events: ['*'],
    owner,
  });
  return { id: registered.id, owner };
}

interface Answer extends EmitAnswer {
  marker: string;
  /** When the emit was sent, relative to the crash: before it, while the server was away, or after its return. */
  sent: 'before' | 'down' | 'after';
}

let phase: Answer['sent'] = 'before';
let emits = 0;

/** Emits `order.created` to `owner` over REST, its payload marked, and answers what came back. */
async function emitTo(owner: string): Promise<Answer> {
  emits += 1;
  const marker = `crash-${emits}`;
  const sent = phase;
  return {
    marker,
    sent,
    ...(await emitOverRest(base, headers, { type: 'order.created', owner, data: { marker } }, ANSWER_MS)),
  };
}

/** Whether `answer` is the web process's answer while its database cannot be reached: a 503 to retry after `Retry-After`. */
const unavailable = (answer: Answer) =>
  answer.status === 503 && answer.body?.code === 'APP_DATABASE_UNAVAILABLE' && Boolean(answer.retryAfter);

/**
 * `count` emits to `owner` at once, every one answered 202: their delivery ids. Once the server is
 * back and the pools have answered, no emit is answered 503: a connection refused while the
 * server recovered keeps nothing of that refusal for its next session (shared/db/session-start.ts).
 */
async function emitAccepted(owner: string, count: number): Promise<string[]> {
  const answers = await Promise.all(Array.from({ length: count }, () => emitTo(owner)));
  const refused = answers.filter((answer) => answer.status !== 202);
  assert.deepEqual(refused, [], 'emits with the database up are accepted');
  return answers.flatMap((answer) => answer.body?.deliveryIds as string[]);
}

/** Clients emitting to `owner` without pause until `stop()`; `answers` holds every answer so far. */
function emitWithoutPause(owner: string) {
  const answers: Answer[] = [];
  let stopped = false;
  const clients = Array.from({ length: CLIENTS }, async () => {
    while (!stopped) answers.push(await emitTo(owner));
  });
  return {
    answers,
    stop: async () => {
      stopped = true;
      await Promise.all(clients);
    },
  };
}

const statusCounts = async () =>
  Object.fromEntries(
    (
      await sql<{ status: string; n: number }[]>`
        select status, count(*)::int as n from app_webhook_deliveries group by status`
    ).map((row) => [row.status, row.n]),
  );

/** Waits until every delivery of `ids` is done. */
const allDone = (ids: string[], what: string) =>
  eventually(
    async () =>
      (await sql`select 1 from app_webhook_deliveries where id = any(${ids}) and status = 'done'`).length ===
      ids.length,
    30_000,
    what,
  );

describe('a crash of PostgreSQL in the middle of emits and deliveries', () => {
  it('loses no emit answered 202 nor any delivery, leaves nothing running or pending, no slot held, and the worker carries on in the same process', async (t) => {
    const show = await sql<{ name: string; setting: string }[]>`
      select name, setting from pg_settings where name in ('fsync', 'full_page_writes', 'synchronous_commit') order by name`;
    assert.deepEqual(
      show.map((row) => `${row.name}=${row.setting}`),
      ['fsync=on', 'full_page_writes=on', 'synchronous_commit=on'],
      'the server runs with durable settings',
    );

    const quick = await endpointAt('quick'); // answers at once, then holds: its claims take run rows
    const held = await endpointAt('held'); // holds from its first request: never known quick, held to CAP
    const flow = await endpointAt('flow'); // answers at once, always

    // done: deliveries to the quick endpoint, answered (it is known quick from then on)
    const done = await emitAccepted(quick.owner, 8);
    await allDone(done, 'the first deliveries done');

    // in flight at the receiver, held, and parked behind the held endpoint's cap
    hold('quick');
    hold('held');
    const inFlightQuick = await emitAccepted(quick.owner, 6);
    const inFlightHeld = await emitAccepted(held.owner, 10);
    const stream = emitWithoutPause(flow.owner);
    cleanups.push(() => stream.stop());
    // the held endpoint is new, so held to its cap: four attempts at the receiver, six parked; the
    // quick one takes all six at once on run rows, or (should its attempts count as slow first)
    // parks what its cap leaves out
    const runsBefore = await eventually(
      async () => {
        const [row] = await sql<{ runs: number; latest: Date | null; quickParked: number; heldParked: number }[]>`
          select (select count(*)::int from app_delivery_runs where endpoint_id = ${quick.id}) as runs,
                 (select max(started_at) from app_delivery_runs) as latest,
                 (select count(*)::int from app_webhook_deliveries
                   where endpoint_id = ${quick.id} and parked_at is not null and status = 'pending') as "quickParked",
                 (select count(*)::int from app_webhook_deliveries
                   where endpoint_id = ${held.id} and parked_at is not null and status = 'pending') as "heldParked"`;
        return row.runs > 0 &&
          heldAnswers.quick.length + row.quickParked === inFlightQuick.length &&
          heldAnswers.held.length === CAP &&
          row.heldParked === inFlightHeld.length - CAP
          ? row
          : undefined;
      },
      20_000,
      'attempts held at the receiver (the quick endpoint on run rows), the rest parked behind the cap',
    );
    // emits still arriving, some already delivered
    await eventually(
      () => {
        const accepted = stream.answers.filter((answer) => answer.status === 202);
        const ids = accepted.flatMap((answer) => answer.body?.deliveryIds as string[]);
        const arrived = received();
        return accepted.length >= 10 && ids.some((id) => arrived.has(id));
      },
      20_000,
      'emits accepted and delivered without pause',
    );

    // the crash: attempts in flight are answered while the server is away, and cannot be recorded
    await crashPostgres();
    phase = 'down';
    release('quick');
    release('held');
    await eventually(() => !worker.health().running, 20_000, "the worker's runner ended with the server");
    await eventually(
      () => stream.answers.filter((answer) => answer.sent === 'down').length >= 2,
      20_000,
      'emits sent while the server is away answered',
    );

    await restartPostgres();
    phase = 'after';
    const backAt = performance.now();
    const [stale] = await sql<{ n: number }[]>`
      select count(*)::int as n from app_delivery_runs where started_at <= ${runsBefore.latest}`;
    assert.equal(stale.n, 0, 'the crash recovery emptied the unlogged run rows (none from before the crash is left)');
    await eventually(
      () => stream.answers.filter((answer) => answer.sent === 'after' && answer.status === 202).length >= 4,
      30_000,
      'emits accepted again once the server is back',
    );
    await stream.stop();

    // every delivery of every stored event ends done: none lost, none left running or pending
    await eventually(
      async () => {
        const counts = await statusCounts();
        return Object.keys(counts).every((status) => status === 'done') || undefined;
      },
      45_000,
      'every delivery done',
    ).catch(async (error: Error) => {
      throw new Error(`${error.message}: ${JSON.stringify(await statusCounts())}`);
    });
    const allDoneMs = performance.now() - backAt;
    assert.equal(workerEnded, undefined, 'the worker process never ended');
    await eventually(() => worker.health().ready, 20_000, 'the worker ready again, in the same process');

    // every emit answered 202 is stored whole and delivered; every other answer was a 503 for an
    // unreachable database, and what it stored (a commit whose answer was lost) is whole and delivered
    const stored = new Map(
      (
        await sql<{ marker: string; id: string; deliveries: string[] }[]>`
          select e.payload->>'marker' as marker, e.id,
                 coalesce(array_agg(d.id order by d.id) filter (where d.id is not null), '{}') as deliveries
            from app_events e left join app_webhook_deliveries d on d.event_id = e.id
           where e.owner = ${flow.owner}
           group by e.id`
      ).map((row) => [row.marker, row]),
    );
    const arrived = received();
    const wrong: string[] = [];
    for (const answer of stream.answers) {
      const event = stored.get(answer.marker);
      const said = `${answer.marker} (sent ${answer.sent}): ${answer.status} ${JSON.stringify(answer.body)}`;
      if (answer.status === 202) {
        const ids = answer.body?.deliveryIds as string[];
        if (event === undefined || event.id !== answer.body?.externalId) wrong.push(`${said}, not stored`);
        else if (JSON.stringify([...ids].sort()) !== JSON.stringify(event.deliveries) || ids.length !== 1)
          wrong.push(`${said}, stored with ${JSON.stringify(event.deliveries)}`);
        else if (!ids.every((id) => arrived.has(id))) wrong.push(`${said}, never received`);
        continue;
      }
      if (!unavailable(answer)) wrong.push(`${said}: not a 503 for an unreachable database`);
      if (event && (event.deliveries.length !== 1 || !event.deliveries.every((id) => arrived.has(id))))
        wrong.push(`${said}, stored anyway but not whole or not received: ${JSON.stringify(event)}`);
    }
    assert.deepEqual(wrong, [], 'every emit answered 202 delivered, every other answered 503');
    const failed = stream.answers.filter((answer) => answer.status !== 202).length;
    assert.ok(failed >= 2, `emits during the crash failed, and said so (${failed} of ${stream.answers.length})`);

    // the deliveries held, parked and done at the crash: received at least once, done
    for (const [what, ids] of [
      ['done', done],
      ['in flight to the quick endpoint', inFlightQuick],
      ['in flight or parked at the held endpoint', inFlightHeld],
    ] as const) {
      assert.deepEqual(
        ids.filter((id) => !arrived.has(id)),
        [],
        `every delivery ${what} at the crash received`,
      );
    }

    // every delivery's attempts recorded: as many rows as it counts, the last one its 200
    const unrecorded = await sql<{ id: string; attempts: number; rows: number; last: string | null }[]>`
      select d.id, d.attempts, count(a.attempt)::int as rows,
             (array_agg(a.outcome || ' ' || coalesce(a.status::text, '-') order by a.attempt desc))[1] as last
        from app_webhook_deliveries d left join app_webhook_attempts a on a.delivery_id = d.id
       group by d.id, d.attempts
      having d.attempts < 1 or count(a.attempt) <> d.attempts
          or (array_agg(a.outcome || ' ' || coalesce(a.status::text, '-') order by a.attempt desc))[1] <> 'done 200'`;
    assert.deepEqual([...unrecorded], [], 'every attempt recorded, the last one the 200 that made the delivery done');

    // no slot left counted: nothing holds one, and later deliveries to the same endpoints all go
    await eventually(
      async () => {
        const [row] = await sql<{ runs: number; slots: number }[]>`
          select (select count(*)::int from app_delivery_runs) as runs,
                 (select count(*)::int from app_webhook_deliveries where slot) as slots`;
        return row.runs === 0 && row.slots === 0;
      },
      10_000,
      'no slot held once everything is done (no run row, no delivery holding one)',
    );
    const later = [...(await emitAccepted(quick.owner, 12)), ...(await emitAccepted(held.owner, 12))];
    await allDone(later, 'a later batch to the same endpoints all done');
    const arrivedLater = received();
    assert.deepEqual(
      later.filter((id) => !arrivedLater.has(id)),
      [],
      'the later batch received',
    );
    assert.equal(workerEnded, undefined, 'the worker process still runs: no restart was needed');
    assert.ok(worker.health().running, 'its runner runs');

    const accepted = stream.answers.filter((answer) => answer.status === 202).length;
    const twice = receiver.requests.length - arrivedLater.size;
    t.diagnostic(
      `${stream.answers.length} emits through the crash, ${accepted} accepted, ${failed} answered 503; every delivery done ${Math.round(allDoneMs)} ms after the server's return; ${twice} deliveries received twice`,
    );
  });
});

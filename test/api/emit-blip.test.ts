/**
 * An emit over REST (`POST /api/v1/events`) keeps the web process's promise through a database
 * blip: every answer comes within `ANSWER_MS` and is either 202, and then the event, every one of
 * its deliveries and their jobs are stored (read directly, not through the proxy), or 503
 * problem+json `APP_DATABASE_UNAVAILABLE` with `Retry-After`; never a 500 nor a hang. A 503 whose
 * event was stored all the same is possible (the commit went through, its answer was lost) and
 * allowed, but such an event is whole too. Once the blips are over, emits one after another all
 * answer 202 within the bound and are stored, every connection of the pool takes one of as many
 * emits at once (each waits on a lock the test holds, which no session the web process left in a
 * transaction may hold), and `/readyz` answers ready: no connection is left out of the pool, nor
 * in it making later emits hang (the emit's transaction runs through shared/db/transaction.ts,
 * which sends nothing more on a lost connection: a rollback sent to it would wait at the head of
 * its next session and hold it out of the pool for good, its transaction open on the server).
 *
 * A blip is every connection reset (RST), or cut (the port closed for a moment), while clients
 * emit without pause and a small pool (`db.poolMax`) serves them, timed on what the web process
 * sends: an emit's statements (the reset at once, or 1-3 ms later with some of them answered),
 * its deliveries' statement, a transaction's `begin`, a new connection's first emit and first
 * commit, a connection opening.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createWebServer } from '../../api/server.ts';
import { createLogger } from '../../shared/log/logger.ts';
import { createToken } from '../../shared/tokens/tokens.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { surviveDriverCrashAsProcessesDo } from '../helpers/driver-crash.ts';
import { linesInto } from '../helpers/logs.ts';
import { emitOverRest, type EmitAnswer } from '../helpers/emits.ts';
import { eventually } from '../helpers/poll.ts';
import { runBlips, type Blip } from '../helpers/blips.ts';
import { startResettingProxy } from '../helpers/postgres-fronts.ts';
import { endpoint, harness } from '../worker/helpers.ts';

/** Far above an emit's time, even reconnecting (the backoff is at most 1 s), far below the request timeout (30 s). */
const ANSWER_MS = 4_000;
/** Emits the test keeps in flight at once while connections are reset. */
const CLIENTS = 4;
/** The web process's pool: fewer connections than clients, so a connection held out of it shows soon. */
const POOL = 3;
/** The owner's endpoints: every emit writes one event, this many deliveries and as many jobs. */
const ENDPOINTS = 3;
/** In every emit's payload (so in the statements that write its event and deliveries), with the emit's number. */
const TAG = 'emitblip';

const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const db = await createTestDatabase();
const h = harness(db);
// one tenant with a few endpoints for every event (nobody delivers: the jobs stay queued)
const first = await endpoint(h, 'http://127.0.0.1:9/');
const owner = first.owner as string;
for (let i = 1; i < ENDPOINTS; i += 1) await endpoint(h, 'http://127.0.0.1:9/', { owner });

// the database behind a proxy that resets its connections, or cuts them (its port closed)
const proxy = await startResettingProxy(db.url);
cleanups.push(() => proxy.close());
// no rate limit: the test's clients emit as fast as they are answered
const config = db.configWith({ databaseUrl: proxy.url, db: { poolMax: POOL }, rateLimit: false });
const log = createLogger(config, { name: 'test', destination: linesInto([]) });
surviveDriverCrashAsProcessesDo(log); // as api/run.ts does: a reset connection can trip the driver's known crash
const web = createWebServer({ config, log });
cleanups.push(() => web.shutdown('test'));
const base = `http://127.0.0.1:${(await web.start(0)).port}`;
const { token } = await createToken({ sql: db.sql, log: db.log }, { name: 'blip', role: 'admin' });
const headers = { authorization: `Bearer ${token}`, accept: 'application/json', 'content-type': 'application/json' };

/** One emit's answer, or 'no answer' within `ANSWER_MS`. */
interface Answer extends EmitAnswer {
  marker: string;
}

let emits = 0;

/** Emits `order.created` to the owner with a payload of its own (`{marker}`), and answers what came back. */
async function emitOne(): Promise<Answer> {
  emits += 1;
  const marker = `${TAG}-${emits}`;
  return {
    marker,
    ...(await emitOverRest(base, headers, { type: 'order.created', owner, data: { marker } }, ANSWER_MS)),
  };
}

/** An event as stored, read directly: its id, its deliveries' ids (sorted), its jobs. */
interface Stored {
  id: string;
  deliveries: string[];
  jobs: number;
}

/** The owner's events by their payload's marker (an array: a marker stored twice would be a defect too). */
async function storedEvents(): Promise<Map<string, Stored[]>> {
  const rows = await db.sql<{ marker: string; id: string; deliveries: string[]; jobs: number }[]>`
    select e.payload->>'marker' as marker, e.id,
           coalesce(array_agg(d.id order by d.id) filter (where d.id is not null), '{}') as deliveries,
           count(j.id)::int as jobs
      from app_events e
      left join app_webhook_deliveries d on d.event_id = e.id
      left join graphile_worker.jobs j on j.key = d.id and j.task_identifier = 'app/webhook'
     where e.owner = ${owner}
     group by e.id`;
  const stored = new Map<string, Stored[]>();
  for (const row of rows) {
    const events = stored.get(row.marker) ?? [];
    events.push({ id: row.id, deliveries: row.deliveries, jobs: row.jobs });
    stored.set(row.marker, events);
  }
  return stored;
}

/** What is wrong with `events` as what one emit stored: not exactly one event with all its deliveries and jobs. */
function incomplete(events: Stored[]): string | undefined {
  if (events.length !== 1) return `${events.length} events stored`;
  const [event] = events as [Stored];
  if (event.deliveries.length !== ENDPOINTS || event.jobs !== ENDPOINTS)
    return `event ${event.id} stored with ${event.deliveries.length} deliveries and ${event.jobs} jobs, not ${ENDPOINTS} of each`;
  return undefined;
}

/**
 * What is wrong with `answer`, given what is stored: a 202 whose event, deliveries and jobs are
 * not all stored as answered, or anything but a prompt 503 APP_DATABASE_UNAVAILABLE (`only202`:
 * anything but that 202). A 503 whose event was stored anyway must have stored it whole.
 */
function wrong(answer: Answer, stored: Map<string, Stored[]>, only202 = false): string | undefined {
  const said = `${answer.marker}: ${answer.status} after ${Math.round(answer.ms)} ms`;
  if (answer.status === 'no answer') return `${said} (no answer within ${ANSWER_MS} ms)`;
  const events = stored.get(answer.marker) ?? [];
  if (answer.status === 202) {
    const problem = incomplete(events);
    if (problem) return `${said}, but ${problem}`;
    const [event] = events as [Stored];
    const answered = [...((answer.body?.deliveryIds as string[] | undefined) ?? [])].sort();
    if (answer.body?.externalId !== event.id || JSON.stringify(answered) !== JSON.stringify(event.deliveries))
      return `${said}, answered ${JSON.stringify(answer.body)}, stored ${JSON.stringify(event)}`;
    return undefined;
  }
  if (
    !only202 &&
    answer.status === 503 &&
    answer.body?.code === 'APP_DATABASE_UNAVAILABLE' &&
    answer.retryAfter === '2' &&
    /problem\+json/.test(answer.contentType ?? '')
  ) {
    const problem = events.length > 0 ? incomplete(events) : undefined;
    return problem ? `${said} (its commit's answer lost?), but ${problem}` : undefined;
  }
  return `${said}: ${JSON.stringify(answer.body)}`;
}

/**
 * `CLIENTS` clients emitting, each as soon as its last answer came, until `stop()`; `answers`
 * holds every answer so far.
 */
function hammer() {
  const answers: Answer[] = [];
  let stopped = false;
  const clients = Array.from({ length: CLIENTS }, async () => {
    while (!stopped) answers.push(await emitOne());
  });
  return {
    answers,
    stop: async () => {
      stopped = true;
      await Promise.all(clients);
    },
  };
}

/**
 * `POOL` emits at once while the test holds a lock that their event's insert waits for, so each
 * holds one of the web process's connections: answers how many of them waited on the lock at
 * most (`POOL` once every connection of the pool serves; fewer, past `ANSWER_MS / 2`, when some
 * are held out of it) and the emits' answers once it is released; or, when the test cannot take
 * the lock within `ANSWER_MS / 2`, the web process's sessions still in a transaction that hold it.
 */
async function emitsOnEveryConnection(): Promise<{ waiting: number; answers: Answer[]; holders?: unknown[] }> {
  const released = Promise.withResolvers<void>();
  const held = Promise.withResolvers<void>();
  const holder = db.sql.begin(async (tx) => {
    await tx.unsafe(`set local lock_timeout = ${ANSWER_MS / 2}`);
    await tx`lock table app_events in share mode`;
    held.resolve();
    await released.promise;
  });
  holder.catch(held.reject);
  try {
    await held.promise;
  } catch {
    const holders = await db.sql`
      select state, wait_event, left(query, 60) as query from pg_stat_activity
       where datname = current_database() and application_name = 'app-web' and xact_start is not null`;
    return { waiting: 0, answers: [], holders: [...holders] };
  }
  const emitting = Promise.all(Array.from({ length: POOL }, () => emitOne()));
  let waiting = 0;
  try {
    await eventually(
      async () => {
        const [row] = await db.sql<{ waiting: number }[]>`
          select count(*)::int as waiting from pg_stat_activity
           where datname = current_database() and application_name = 'app-web' and wait_event_type = 'Lock'`;
        waiting = Math.max(waiting, row?.waiting ?? 0);
        return waiting >= POOL;
      },
      ANSWER_MS / 2,
      `${POOL} emits waiting on the lock, one on each connection of the pool`,
    ).catch(() => undefined);
  } finally {
    released.resolve();
    await holder;
  }
  return { waiting, answers: await emitting };
}

describe('emits over REST during a database blip', () => {
  it('every emit answers 202 with its event, deliveries and jobs stored, or a prompt 503 APP_DATABASE_UNAVAILABLE; afterwards every emit answers 202 promptly, on every connection of the pool', async () => {
    const healthy = await emitOne();
    assert.equal(healthy.status, 202, JSON.stringify(healthy));
    assert.equal(wrong(healthy, await storedEvents(), true), undefined, 'the healthy emit');
    assert.equal(healthy.body?.deliveryCount, ENDPOINTS, 'an emit reaches every endpoint of the owner');

    const load = hammer();
    /**
     * The blips: each a reset (or a cut) of every connection once a client sent bytes holding
     * `marker`, `delayMs` later; `again` blips again as soon as a client sent its marker after
     * that. An emit sends, in its transaction: `begin` (its text every time), its event's row (a
     * named statement: its text once per connection, its parameters, the payload with `TAG`,
     * every time), its deliveries and jobs (an unnamed statement over `add_jobs`: its text, and
     * the payload in every delivery's body, every time), then `commit` (named: its text only on a
     * connection's first commit, so after a blip, when every connection is new).
     */
    const blips: Blip[] = [
      { marker: TAG }, // an emit's event or deliveries in flight
      { marker: 'add_jobs' }, // the deliveries in flight, the event's row written
      { marker: TAG, delayMs: 1 }, // some of the statements answered, the others in flight
      { marker: TAG, again: { marker: 'insert into app_events' } }, // a new connection's first emit
      { marker: TAG, again: { marker: 'commit' } }, // a new connection's first commit in flight: its answer lost
      { marker: 'add_jobs', delayMs: 2, again: { marker: 'begin' } }, // a transaction opening
      { marker: TAG, again: { marker: 'application_name' } }, // the connections opening again
      { marker: TAG, cut: true, again: { marker: 'application_name', delayMs: 1 } },
      { marker: 'add_jobs', delayMs: 3, again: { marker: 'commit', delayMs: 1 } }, // a commit answered or not
      { marker: TAG, delayMs: 2 },
    ];
    const failed = await runBlips(proxy, blips, {
      answered: () => load.answers.length,
      clients: CLIENTS,
      answerMs: ANSWER_MS,
      stop: load.stop,
    });
    const stored = await storedEvents();
    const problems = load.answers.map((answer) => wrong(answer, stored)).filter((problem) => problem !== undefined);
    const count = (status: number) => load.answers.filter((answer) => answer.status === status).length;
    const storedAfter503 = load.answers.filter((answer) => answer.status === 503 && stored.has(answer.marker)).length;
    const answered = new Set([healthy, ...load.answers].map((answer) => answer.marker));
    const unaccounted = [...stored.keys()].filter((marker) => !answered.has(marker));
    assert.deepEqual(
      [...failed, ...problems, ...unaccounted.map((marker) => `${marker}: stored, never emitted`)].slice(0, 20),
      [],
      `${load.answers.length} answers, ${count(202)} 202, ${count(503)} 503 (${storedAfter503} of them stored all the same), ${problems.length} wrong (the first shown)`,
    );
    assert.ok(count(503) > 0, 'the blips failed some emits in flight');
    assert.ok(count(202) > 0, 'emits went through between the blips');

    // the database healthy again: emits one after another, all 202 and stored
    const oneByOne: Answer[] = [];
    for (let i = 0; i < POOL * 3; i += 1) oneByOne.push(await emitOne());
    const storedThen = await storedEvents();
    assert.deepEqual(
      oneByOne.map((answer) => wrong(answer, storedThen, true)).filter((problem) => problem !== undefined),
      [],
      'emits one after another after the blips',
    );
    // and every connection of the pool serves: as many emits at once as the pool has connections
    // each hold one while their event's insert waits for the test's lock (which no transaction
    // left open by the web process may hold)
    const { waiting, answers, holders } = await emitsOnEveryConnection();
    assert.deepEqual(
      holders,
      undefined,
      "the web process's sessions in a transaction, holding app_events, after the blips",
    );
    assert.equal(
      waiting,
      POOL,
      "the web process's connections that took an emit each (the others are held out of its pool)",
    );
    const storedLast = await storedEvents();
    assert.deepEqual(
      answers.map((answer) => wrong(answer, storedLast, true)).filter((problem) => problem !== undefined),
      [],
      'emits at once after the blips',
    );
    const ready = await fetch(`${base}/readyz`);
    assert.equal(ready.status, 200, JSON.stringify(await ready.json()));
  });
});

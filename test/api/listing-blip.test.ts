/**
 * Listings served with PostgreSQL's generic plan (shared/db/generic-plan.ts: a later page, an
 * owner's page and its bounded count) keep the web process's promise through a database blip:
 * every answer is 200 with exactly the page and total the healthy database gives, or 503
 * problem+json `APP_DATABASE_UNAVAILABLE` with `Retry-After`, and comes within `ANSWER_MS`; once
 * the blips are over, listings and other calls, one after another, all answer 200 within it (no
 * connection left in the pool that makes later queries hang). A blip is every connection reset
 * (RST), or cut (the port closed for a moment), while clients ask the listings without pause,
 * timed on what the web process sends: an owner's listing's statements (the reset at once, or
 * 1-3 ms later with some of them answered), a new connection's first generic plan or count, a
 * connection opening.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createWebServer } from '../../api/server.ts';
import { createLogger } from '../../shared/log/logger.ts';
import { createToken } from '../../shared/tokens/tokens.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { surviveDriverCrashAsProcessesDo } from '../helpers/driver-crash.ts';
import { linesInto } from '../helpers/logs.ts';
import { runBlips, type Blip } from '../helpers/blips.ts';
import { startResettingProxy } from '../helpers/postgres-fronts.ts';
import { endpoint, harness, send } from '../worker/helpers.ts';

/** Far above a listing's time, even reconnecting (the backoff is at most 1 s), far below the request timeout (30 s). */
const ANSWER_MS = 4_000;
/** Requests the test keeps in flight at once while connections are reset. */
const CLIENTS = 4;

const cleanups: (() => Promise<unknown>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const db = await createTestDatabase();
const h = harness(db);
// two tenants' deliveries and events, more than api.exactTotal in all (so the listings read as
// on a big table, through the generic plan) and fewer for an owner (whose total is counted)
const owners = [await endpoint(h, 'http://127.0.0.1:9/'), await endpoint(h, 'http://127.0.0.1:9/')];
for (let i = 0; i < 12; i += 1) await send(h, owners[0] as { owner: string });
for (let i = 0; i < 18; i += 1) await send(h, owners[1] as { owner: string });
// statistics as PostgreSQL would have them: the estimated totals are then the same at every ask
await db.sql`analyze app_webhook_deliveries, app_events`;
const owner = owners[0]?.owner as string;

// the database behind a proxy that resets its connections, or cuts them (its port closed)
const proxy = await startResettingProxy(db.url);
cleanups.push(() => proxy.close());
// no rate limit: the test's clients ask as fast as they are answered
const config = db.configWith({ databaseUrl: proxy.url, api: { exactTotal: 20 }, rateLimit: false });
const log = createLogger(config, { name: 'test', destination: linesInto([]) });
surviveDriverCrashAsProcessesDo(log); // as api/run.ts does: a reset connection can trip the driver's known crash
const web = createWebServer({ config, log });
cleanups.push(() => web.shutdown('test'));
const base = `http://127.0.0.1:${(await web.start(0)).port}`;
const { token } = await createToken({ sql: db.sql, log: db.log }, { name: 'blip', role: 'admin' });
const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };

/** The listings served through the generic plan, and the ids of their rows, newest first, read directly. */
const LISTINGS = {
  '/api/v1/deliveries?page=2&per_page=5': async () => ids('app_webhook_deliveries', null, 5),
  [`/api/v1/deliveries?owner=${owner}&per_page=5`]: async () => ids('app_webhook_deliveries', owner, 0),
  [`/api/v1/deliveries?owner=${owner}&page=2&per_page=5`]: async () => ids('app_webhook_deliveries', owner, 5),
  '/api/v1/events?page=2&per_page=5': async () => ids('app_events', null, 5),
};
const PATHS = Object.keys(LISTINGS);

async function ids(table: 'app_webhook_deliveries' | 'app_events', of: string | null, offset: number) {
  const rows = await db.sql<{ id: string }[]>`
    select id from ${db.sql(table)} where ${of === null ? db.sql`true` : db.sql`owner = ${of}`}
     order by created_at desc, id desc limit 5 offset ${offset}`;
  return rows.map((row) => row.id);
}

/** What a listing answers: its rows' ids and its total. */
interface Page {
  ids: string[];
  total: number;
  totalEstimated: boolean;
}

function pageOf(body: Record<string, unknown>): Page {
  const embedded = body._embedded as Record<string, { externalId: string }[]>;
  const rows = embedded.deliveries ?? embedded.events ?? [];
  return {
    ids: rows.map((row) => row.externalId),
    total: body.total as number,
    totalEstimated: body.totalEstimated as boolean,
  };
}

/** One request's answer, or 'no answer' within `ANSWER_MS`. */
interface Answer {
  path: string;
  status: number | 'no answer';
  ms: number;
  body?: Record<string, unknown>;
  retryAfter?: string | null;
}

async function ask(path: string): Promise<Answer> {
  const started = performance.now();
  try {
    const answer = await fetch(`${base}${path}`, { headers, signal: AbortSignal.timeout(ANSWER_MS) });
    const body = (await answer.json()) as Record<string, unknown>;
    return {
      path,
      status: answer.status,
      ms: performance.now() - started,
      body,
      retryAfter: answer.headers.get('retry-after'),
    };
  } catch {
    return { path, status: 'no answer', ms: performance.now() - started };
  }
}

/** The page each listing answers with the database healthy, checked against the rows read directly. */
const expected = new Map<string, Page>();

/** What is wrong with `answer`: not a listing's exact page (200), nor a prompt 503 APP_DATABASE_UNAVAILABLE. */
function wrong(answer: Answer, only200 = false): string | undefined {
  const said = `${answer.path}: ${answer.status} after ${Math.round(answer.ms)} ms`;
  if (answer.status === 'no answer') return `${said} (no answer within ${ANSWER_MS} ms)`;
  if (answer.status === 200) {
    const page = pageOf(answer.body ?? {});
    const want = expected.get(answer.path);
    if (want && JSON.stringify(page) !== JSON.stringify(want))
      return `${said}, a wrong page: ${JSON.stringify(page)}, not ${JSON.stringify(want)}`;
    return undefined;
  }
  if (
    !only200 &&
    answer.status === 503 &&
    answer.body?.code === 'APP_DATABASE_UNAVAILABLE' &&
    answer.retryAfter === '2'
  )
    return undefined;
  return `${said}: ${JSON.stringify(answer.body)}`;
}

/**
 * `CLIENTS` clients asking the listings in turn, each as soon as its last answer came, until
 * `stop()`; `answers` holds every answer so far.
 */
function hammer() {
  const answers: Answer[] = [];
  let stopped = false;
  const clients = Array.from({ length: CLIENTS }, async (_, client) => {
    for (let i = client; !stopped; i += 1) answers.push(await ask(PATHS[i % PATHS.length] as string));
  });
  return {
    answers,
    stop: async () => {
      stopped = true;
      await Promise.all(clients);
    },
  };
}

describe('listings through the generic plan during a database blip', () => {
  it('every answer is the exact page or a prompt 503 APP_DATABASE_UNAVAILABLE, and afterwards every call answers 200 promptly', async () => {
    for (const [path, direct] of Object.entries(LISTINGS)) {
      const answer = await ask(path);
      assert.equal(answer.status, 200, JSON.stringify(answer));
      const page = pageOf(answer.body ?? {});
      assert.deepEqual(page.ids, await direct(), `${path}: the healthy page`);
      expected.set(path, page);
    }
    assert.deepEqual(
      [...expected.values()].map((page) => page.totalEstimated),
      [true, false, false, true],
      'an estimate past api.exactTotal, an owner counted (with the generic plan too)',
    );

    const load = hammer();
    /**
     * The blips: each a reset (or a cut) of every connection once a client sent bytes holding
     * `marker`, `delayMs` later; `again` blips again as soon as a client sent its marker after
     * that. A statement's text is sent once per connection (then it is named), its parameters at
     * every call: the owner's name is sent with each of its listing's statements (the page, the
     * count), the texts only by the connections opened anew after a blip.
     */
    // delayMs places the reset after the marker's statements went out, some of them answered
    const blips: Blip[] = [
      { marker: owner },
      { marker: owner, delayMs: 1 }, // some of the statements answered, the others in flight
      { marker: owner, again: { marker: 'plan_cache_mode' } }, // a new connection's first generic plan
      { marker: owner, again: { marker: 'application_name' } }, // the connections opening again
      { marker: owner, delayMs: 3, again: { marker: 'bounded' } }, // an owner's count on a new connection
      { marker: owner, cut: true, again: { marker: 'application_name', delayMs: 1 } },
      { marker: owner, delayMs: 2 },
    ];
    const failed = await runBlips(proxy, blips, {
      answered: () => load.answers.length,
      clients: CLIENTS,
      answerMs: ANSWER_MS,
      stop: load.stop,
    });
    const problems = load.answers.map((answer) => wrong(answer)).filter((problem) => problem !== undefined);
    const count = (status: number) => load.answers.filter((answer) => answer.status === status).length;
    assert.deepEqual(
      [...failed, ...problems].slice(0, 20),
      [],
      `${load.answers.length} answers, ${count(200)} 200, ${count(503)} 503, ${problems.length} wrong (the first shown)`,
    );
    assert.ok(count(503) > 0, 'the blips failed some listings in flight');

    // the database healthy again: the listings and other calls, one after another, all 200
    const calls = [
      ...Array.from({ length: 5 }, () => PATHS).flat(),
      '/api/v1/webhooks',
      '/api/v1/deliveries',
      '/api/v1/events',
      `/api/v1/deliveries?owner=${owners[1]?.owner}`,
    ];
    const later: string[] = [];
    for (const path of calls) {
      const problem = wrong(await ask(path), true);
      if (problem) later.push(problem);
    }
    assert.deepEqual(later, [], 'calls after the blips');
    assert.equal((await fetch(`${base}/readyz`)).status, 200);
  });
});

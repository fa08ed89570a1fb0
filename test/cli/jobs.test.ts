/**
 * The `jobs*` commands end to end (docs/cli.md): the real CLI process on
 * the test database, a real receiver, `--json` documents and one-line errors.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runAppInProcess, type CliRun as CliResult } from '../helpers/cli.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { spawnNode } from '../helpers/processes.ts';
import { startReceiver } from '../worker/delivery/receiver.ts';
import { endpoint, harness, send, type Harness } from '../worker/helpers.ts';

const db = await createTestDatabase();
const h: Harness = harness(db);

/** Runs `app <args>` (in this process) on the test database. */
function app(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runAppInProcess(args, {
    ...process.env,
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    APP_WEBHOOKS__ALLOW_HTTP: 'true',
    APP_WEBHOOKS__ALLOW_PRIVATE: 'true',
    APP_WEBHOOKS__TIMEOUT: '2s',
    ...env,
  });
}

const json = <T>(result: CliResult): T => {
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as T;
};

describe('jobs commands', () => {
  let answer = 500;
  let receiverClose: () => Promise<void> = async () => {};
  after(() => receiverClose());

  it('jobs:list, jobs --once, jobs:dead, jobs show, jobs:show and jobs:retry work end to end', async () => {
    const receiver = await startReceiver((_req, res) => {
      res.statusCode = answer;
      res.end(`answer ${answer}`);
    });
    receiverClose = () => receiver.close();
    const ep = await endpoint(h, `${receiver.origin}/in`);
    const [id] = await send(h, ep, 'invoice.paid', { total: 10 });

    const listed = json<Array<{ externalId: string; status: string; queue: string; type: string }>>(
      await app(['jobs:list', '--json']),
    );
    assert.deepEqual(
      listed.map((d) => [d.externalId, d.status, d.queue, d.type]),
      [[id, 'pending', 'webhooks', 'invoice.paid']],
    );
    assert.deepEqual(
      json<unknown[]>(await app(['jobs:list', '--queue', 'elsewhere', '--json'])),
      [],
      '--queue filters',
    );

    const once = json<{ once: boolean; counts: Record<string, number>; estimated: string[] }>(
      await app(['jobs', '--once', '--json'], { APP_WEBHOOKS__MAX_ATTEMPTS: '1' }),
    );
    assert.deepEqual(once.counts, { pending: 0, running: 0, done: 0, dead: 1 });
    assert.deepEqual(once.estimated, [], 'a small table is counted exactly');
    assert.equal(receiver.requests.length, 1);

    const dead = json<Array<{ externalId: string; status: string; lastError: string; lastStatus: number }>>(
      await app(['jobs:dead', '--json']),
    );
    assert.equal(dead.length, 1);
    assert.equal(dead[0].externalId, id);
    assert.match(dead[0].lastError, /^attempts exhausted \(1 of 1\); last: receiver answered 500/);
    assert.equal(dead[0].lastStatus, 500);

    const shown = json<{
      externalId: string;
      status: string;
      type: string;
      lastError: string;
      endpoint: { url: string; enabled: boolean; disabledReason: string | null };
      attempts: Array<{
        attempt: number;
        status: number;
        outcome: string;
        excerpt: string;
        durationMs: number;
        startedAt: string;
      }>;
    }>(await app(['jobs', 'show', id, '--json']));
    assert.equal(shown.externalId, id);
    assert.equal(shown.status, 'dead');
    assert.equal(shown.type, 'invoice.paid');
    assert.deepEqual(shown.endpoint, { url: `${receiver.origin}/in`, enabled: true, disabledReason: null });
    assert.equal(shown.attempts.length, 1);
    assert.equal(shown.attempts[0].status, 500);
    assert.equal(shown.attempts[0].outcome, 'dead');
    assert.equal(shown.attempts[0].excerpt, 'answer 500');

    const text = await app(['jobs:show', id]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`id: +${id}`));
    assert.match(text.stdout, new RegExp(`endpoint: +${ep.id}`));
    assert.match(text.stdout, /event: +invoice\.paid/);
    assert.match(text.stdout, /error: +attempts exhausted/);
    assert.match(text.stdout, /#1 .* status 500 +-> dead/);

    answer = 200;
    const retried = json<{ externalId: string; status: string }>(await app(['jobs:retry', id, '--json']));
    assert.deepEqual([retried.externalId, retried.status], [id, 'pending']);
    const again = json<{ counts: Record<string, number> }>(
      await app(['jobs', '--once', '--json'], { APP_WEBHOOKS__MAX_ATTEMPTS: '1' }),
    );
    assert.equal(again.counts.done, 1, 'a retried delivery gets a new series of attempts');
    assert.equal(receiver.requests.length, 2);
    assert.equal(receiver.requests[1].headers['webhook-id'], id, 'sent again with the same webhook-id');
    const after = json<{ status: string; attempts: Array<{ outcome: string }> }>(
      await app(['jobs:show', id, '--json']),
    );
    assert.equal(after.status, 'done');
    assert.deepEqual(
      after.attempts.map((a) => a.outcome),
      ['dead', 'done'],
      'the earlier attempt stays on record',
    );
  });

  it('refuses with one line: an unknown delivery (exit 3, not found), and retrying one that is not dead (exit 1)', async () => {
    const unknown = await app(['jobs', 'show', 'msg_nope']);
    assert.equal(unknown.code, 3);
    assert.equal(unknown.stderr.trim().split('\n').length, 1);
    assert.match(unknown.stderr, /webhook delivery msg_nope does not exist/);
    assert.equal(unknown.stdout, '');

    const [done] = (
      await h.sql<{ id: string }[]>`select id from app_webhook_deliveries where status = 'done' limit 1`
    ).map((row) => row.id);
    const notDead = await app(['jobs:retry', done]);
    assert.equal(notDead.code, 1);
    assert.match(notDead.stderr, /is done, not dead: only dead deliveries are retried/);
  });
});

describe('the options of jobs belong to jobs alone', () => {
  it('an option of jobs alone is not an option of its subcommands: jobs show --help does not list --once, which it refuses', async () => {
    const parent = await app(['jobs', '--help']);
    assert.equal(parent.code, 0, parent.stderr);
    assert.match(parent.stdout, /--once/);
    const help = await app(['jobs', 'show', '--help']);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /app jobs show <id>/);
    assert.doesNotMatch(help.stdout, /--once/);
    const refused = await app(['jobs', 'show', 'msg_any', '--once']);
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /Unknown argument: once/);
  });
});

describe('the log of jobs', () => {
  it("jobs --once writes its worker's log lines as the other commands write theirs: readable on stderr in development, never raw JSON", async () => {
    const run = spawnNode(
      'cli/bin.js',
      { NODE_ENV: 'development', DATABASE_URL: db.url, LOG_LEVEL: 'debug', APP_NOT_A_KEY: 'x' },
      ['jobs', '--once'],
    );
    const exit = await run.exitedWithin(30_000);
    const output = run.output();
    assert.equal(exit.code, 0, output);
    assert.match(output, /^\[[\d:.]+\] WARN \(cli\): environment variable APP_NOT_A_KEY/m, "the CLI's own line");
    assert.match(output, /^\[[\d:.]+\] (DEBUG|INFO|WARN) \(worker\): /m, "the worker's lines, alike");
    assert.doesNotMatch(output, /^\{"level"/m, 'no raw pino line');
    assert.match(output, /^performed the jobs that were due/m);
  });
});

describe("listing and replay commands share the API's filters (jobs:list, events:list, events:show, webhooks:recover)", () => {
  it('jobs:list and jobs:dead filter by endpoint, event type, owner and time, as REST does', async () => {
    const a = await endpoint(h, 'http://127.0.0.1:9/a');
    const b = await endpoint(h, 'http://127.0.0.1:9/b');
    const [first] = await send(h, a, 'order.created');
    await send(h, b, 'invoice.paid');
    const ids = (result: CliResult) => json<{ externalId: string }[]>(result).map((d) => d.externalId);

    assert.deepEqual(ids(await app(['jobs:list', '--endpoint', a.id, '--json'])), [first]);
    assert.ok(ids(await app(['jobs:list', '--type', 'invoice.paid', '--json'])).every((id) => id !== first));
    assert.deepEqual(ids(await app(['jobs:list', '--owner', String(a.owner), '--json'])), [first]);
    assert.deepEqual(
      ids(
        await app(['jobs:list', '--endpoint', a.id, '--since', new Date(Date.now() + 60_000).toISOString(), '--json']),
      ),
      [],
    );
    assert.deepEqual(ids(await app(['jobs:dead', '--endpoint', a.id, '--json'])), []);

    const badRange = await app(['jobs:list', '--since', 'yesterday']);
    assert.equal(badRange.code, 1);
    assert.match(badRange.stderr, /^app: invalid time since/m);
  });

  it("the header of jobs:list and jobs:dead counts each state under the listing's own filters (--owner, --endpoint), not every tenant's", async () => {
    const owner = `tenant-r-${process.pid}`;
    const a = await endpoint(h, 'http://127.0.0.1:9/header-a', { owner, events: ['order.*'] });
    const b = await endpoint(h, 'http://127.0.0.1:9/header-b', { owner, events: ['invoice.*'] });
    const other = await endpoint(h, 'http://127.0.0.1:9/header-other');
    const [deadOne] = await send(h, a, 'order.created');
    await send(h, a, 'order.created'); // stays pending
    const [doneOne] = await send(h, b, 'invoice.paid');
    for (let i = 0; i < 3; i++) await send(h, other, 'order.created'); // another tenant's, pending
    await h.sql`update app_webhook_deliveries set status = 'dead', last_error = 'test: made dead' where id = ${deadOne}`;
    await h.sql`update app_webhook_deliveries set status = 'done', completed_at = now() where id = ${doneOne}`;
    const header = async (args: string[]) => {
      const run = await app(args);
      assert.equal(run.code, 0, run.stderr);
      return run.stdout.split('\n')[0];
    };

    assert.equal(await header(['jobs:dead', '--owner', owner]), 'pending 1, running 0, done 1, dead 1');
    assert.equal(await header(['jobs:list', '--owner', owner]), 'pending 1, running 0, done 1, dead 1');
    assert.equal(await header(['jobs:list', '--endpoint', a.id]), 'pending 1, running 0, done 0, dead 1');
    assert.equal(await header(['jobs:dead', '--endpoint', b.id]), 'pending 0, running 0, done 1, dead 0');
    assert.equal(await header(['jobs:list', '--endpoint', other.id]), 'pending 3, running 0, done 0, dead 0');
    assert.equal(
      await header(['jobs:list', '--owner', owner, '--type', 'invoice.paid']),
      'pending 0, running 0, done 1, dead 0',
    );
    assert.equal(
      await header(['jobs:list', '--owner', owner, '--since', new Date(Date.now() + 60_000).toISOString()]),
      'pending 0, running 0, done 0, dead 0',
    );
  });

  it('events:list and events:show answer the events with their delivery counts; an unknown event is exit 3', async () => {
    const ep = await endpoint(h, 'http://127.0.0.1:9/events');
    await send(h, ep, 'shipment.sent', { parcel: 7 });
    const [event] = json<
      Array<{ externalId: string; type: string; owner: string; deliveryCounts: Record<string, number> }>
    >(await app(['events:list', '--owner', String(ep.owner), '--json']));
    assert.equal(event.type, 'shipment.sent');
    assert.equal(event.deliveryCounts.pending, 1);
    const shown = json<{ externalId: string; data: unknown }>(await app(['events:show', event.externalId, '--json']));
    assert.deepEqual(shown.data, { parcel: 7 });
    assert.equal((await app(['events:show', 'evt_unknown'])).code, 3);
  });

  it('webhooks:recover sends again the dead deliveries of an endpoint created in the range', async () => {
    const ep = await endpoint(h, 'http://127.0.0.1:9/recover');
    const ids = await send(h, ep, 'order.created');
    await h.sql`update app_webhook_deliveries set status = 'dead', last_error = 'test: made dead' where id = any(${ids})`;
    const since = new Date(Date.now() - 60_000).toISOString();
    const result = json<{ recovered: number; deliveryIds: string[] }>(
      await app(['webhooks:recover', ep.id, '--since', since, '--json']),
    );
    assert.equal(result.recovered, 1);
    assert.deepEqual(result.deliveryIds, ids);
    const [{ status }] = await h.sql<
      { status: string }[]
    >`select status from app_webhook_deliveries where id = ${ids[0]}`;
    assert.equal(status, 'pending');
    const missingSince = await app(['webhooks:recover', ep.id]);
    assert.equal(missingSince.code, 2, 'a required option missing is a usage error');
  });

  it('a blank --since or --until (an unset shell variable) is refused, never read as no bound', async () => {
    const ep = await endpoint(h, 'http://127.0.0.1:9/recover-blank');
    const ids = await send(h, ep, 'order.created');
    await h.sql`update app_webhook_deliveries set status = 'dead', last_error = 'test: made dead' where id = any(${ids})`;
    const since = new Date(Date.now() - 60_000).toISOString();
    for (const args of [
      ['webhooks:recover', ep.id, '--since', since, '--until', ''],
      ['webhooks:recover', ep.id, '--since', ' '],
      ['jobs:list', '--since', ''],
      ['jobs:dead', '--until', ' '],
      ['events:list', '--since', ''],
    ]) {
      const run = await app(args);
      assert.equal(run.code, 1, `${args.join(' ')}: ${run.stdout}${run.stderr}`);
      assert.equal(run.stdout, '');
      assert.match(run.stderr, /^app: invalid time (since|until): is empty: give an ISO 8601 date-time/m);
    }
    const [{ status }] = await h.sql<
      { status: string }[]
    >`select status from app_webhook_deliveries where id = ${ids[0]}`;
    assert.equal(status, 'dead', 'nothing was replayed');
  });
});

describe('jobs with the database out of reach', () => {
  it('jobs --once exits 4 at once; jobs keeps trying for worker.outageLimit, then exits 4 saying so', async () => {
    const unreachable = 'postgres://app:secret@127.0.0.1:1/app';
    const once = await app(['jobs', '--once'], { DATABASE_URL: unreachable });
    assert.equal(once.code, 4, once.stderr);
    assert.match(once.stderr, /^app: cannot reach the database at 127\.0\.0\.1:1 \(DATABASE_URL\)/m);
    const run = spawnNode(
      'cli/bin.js',
      { NODE_ENV: 'test', DATABASE_URL: unreachable, APP_WORKER__OUTAGE_LIMIT: '1s' },
      ['jobs'],
    );
    const exit = await run.exitedWithin(30_000);
    assert.equal(exit.code, 4, run.output());
    assert.match(
      run.output(),
      /^app: cannot reach the database at 127\.0\.0\.1:1 \(DATABASE_URL\): the database has not answered for 1 s \(worker\.outageLimit\)/m,
    );
  });
});

/**
 * Filters on the command line: `webhooks:add|update --filter '<json>'` and `--no-filter`,
 * `webhooks:filter-test`, and what `events:show` says of an event the filters left out. A refused
 * filter is one `app:` line on stderr with exit 1; a command line without an event, exit 2.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runAppInProcess } from '../helpers/cli.ts';
import { createTestDatabase } from '../helpers/database.ts';

const db = await createTestDatabase();

function app(args: string[]) {
  return runAppInProcess(args, {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    APP_WEBHOOKS__ALLOW_HTTP: 'true',
    APP_WEBHOOKS__ALLOW_PRIVATE: 'true',
  });
}

async function json<T = Record<string, any>>(args: string[]): Promise<T> {
  const run = await app([...args, '--json']);
  assert.equal(run.code, 0, `app ${args.join(' ')}: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

/** One `app:` line on stderr matching `reason`, exit `exit`, nothing on stdout. */
async function refused(args: string[], reason: RegExp, exit = 1): Promise<void> {
  const run = await app(args);
  assert.equal(run.code, exit, run.stdout + run.stderr);
  assert.equal(run.stdout, '');
  const lines = run.stderr.split('\n').filter((line) => line.startsWith('app: '));
  assert.equal(lines.length, 1, run.stderr);
  assert.match(lines[0], reason);
}

describe('webhooks:add and webhooks:update --filter', () => {
  it('adds with a filter, shows it, replaces it, and --no-filter removes it', async () => {
    const filter = { 'data.customer.country': { $in: ['FR', 'DE'] } };
    const added = await json([
      'webhooks:add',
      'http://127.0.0.1:9/cli',
      '--events',
      'order.*',
      '--owner',
      'cli-filters',
      '--filter',
      JSON.stringify(filter),
    ]);
    assert.deepEqual(added.filter, filter);
    const text = await app(['webhooks:show', added.externalId]);
    assert.match(text.stdout, /^filter: {6}\{"data\.customer\.country":\{"\$in":\["FR","DE"\]\}\}$/m);
    const replaced = await json(['webhooks:update', added.externalId, '--filter', '{"data.amount": {"$gt": 5}}']);
    assert.deepEqual(replaced.filter, { 'data.amount': { $gt: 5 } });
    const removed = await json(['webhooks:update', added.externalId, '--no-filter']);
    assert.equal(removed.filter, null);
    assert.match((await app(['webhooks:show', added.externalId])).stdout, /^filter: {6}\(none\)$/m);
    const plain = await json(['webhooks:add', 'http://127.0.0.1:9/cli', '--events', '*', '--no-filter']);
    assert.equal(plain.filter, null);
  });

  it('a filter that is not JSON, or outside the grammar, is refused in one line (exit 1)', async () => {
    await refused(
      ['webhooks:add', 'http://127.0.0.1:9/cli', '--events', '*', '--filter', '{data.a: 1}'],
      /^app: --filter is not valid JSON/,
    );
    await refused(
      ['webhooks:add', 'http://127.0.0.1:9/cli', '--events', '*', '--filter', '{"$where": "1"}'],
      /^app: invalid filter at \$where: unknown operator \$where/,
    );
    await refused(
      ['webhooks:add', 'http://127.0.0.1:9/cli', '--events', '*', '--filter', '["data.a"]'],
      /^app: invalid filter: must be a JSON object/,
    );
  });

  it("a blank --filter (an unset shell variable) is refused, never read as no filter: that is --no-filter or 'null'", async () => {
    const before = (await json<unknown[]>(['webhooks:list'])).length;
    for (const blank of ['', '  ']) {
      await refused(
        ['webhooks:add', 'http://127.0.0.1:9/cli', '--events', '*', '--filter', blank],
        /^app: invalid filter: must be a JSON object \(or null for none\)/,
      );
      await refused(
        ['webhooks:filter-test', '--filter', blank, '--event', '{"type":"a.b"}'],
        /^app: invalid filter: must be a JSON object \(or null for none\)/,
      );
    }
    assert.equal((await json<unknown[]>(['webhooks:list'])).length, before, 'no endpoint was registered');
    const added = await json(['webhooks:add', 'http://127.0.0.1:9/cli', '--events', '*', '--filter', '{"data.n": 1}']);
    await refused(
      ['webhooks:update', added.externalId, '--filter', ''],
      /^app: invalid filter: must be a JSON object \(or null for none\)/,
    );
    assert.deepEqual((await json(['webhooks:show', added.externalId])).filter, { 'data.n': 1 });
  });
});

describe('webhooks:filter-test', () => {
  it('says whether the filter lets the event through, and for a miss which condition failed', async () => {
    const filter = '{"data.amount": {"$gte": 100}}';
    const yes = await app([
      'webhooks:filter-test',
      '--filter',
      filter,
      '--event',
      '{"type":"a.b","data":{"amount":100}}',
    ]);
    assert.equal(yes.code, 0, yes.stderr);
    assert.match(yes.stdout, /^matches: yes/);
    assert.deepEqual(
      await json(['webhooks:filter-test', '--filter', filter, '--event', '{"type":"a.b","data":{"amount":"100"}}']),
      { matches: false, failed: { path: 'data.amount', operator: '$gte', at: 'data.amount.$gte' } },
    );
    assert.deepEqual(await json(['webhooks:filter-test', '--filter', 'null', '--event', '{"type":"a.b"}']), {
      matches: true,
      failed: null,
    });
  });

  it('tries a retained event by id; an unknown one is exit 3', async () => {
    await json([
      'webhooks:add',
      'http://127.0.0.1:9/cli',
      '--events',
      'order.*',
      '--owner',
      'cli-try',
      '--filter',
      '{"data.n": 1}',
    ]);
    const emitted = await json(['events:emit', 'order.created', '--owner', 'cli-try', '--data', '{"n": 2}']);
    assert.equal(emitted.deliveryCount, 0);
    assert.equal(emitted.filteredOut, 1, 'the event is written; its one subscriber filtered it out');
    const eventId = (await json<Array<{ externalId: string }>>(['events:list', '--owner', 'cli-try']))[0].externalId;
    assert.deepEqual(await json(['webhooks:filter-test', '--filter', '{"data.n": 2}', '--event-id', eventId]), {
      matches: true,
      failed: null,
    });
    const shown = await app(['events:show', eventId]);
    assert.match(shown.stdout, /^filtered: {3}1 subscribed endpoint left out by its filter$/m);
    assert.equal((await json(['events:show', eventId])).filteredOut, 1);
    await refused(['webhooks:filter-test', '--filter', 'null', '--event-id', 'evt_missing'], /does not exist/, 3);
  });

  it('without an event, or with both, it is a usage error (exit 2)', async () => {
    const none = await app(['webhooks:filter-test', '--filter', 'null']);
    assert.equal(none.code, 2, none.stderr);
    assert.match(none.stderr, /--event <JSON> or --event-id/);
    const both = await app(['webhooks:filter-test', '--filter', 'null', '--event', '{}', '--event-id', 'evt_x']);
    assert.equal(both.code, 2, both.stderr);
  });
});

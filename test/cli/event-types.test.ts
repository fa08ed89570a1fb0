/**
 * `app event-types:*` against a real database: `--no-schema` means "no schema" (documented in
 * docs/cli.md), on add and on update, rather than a schema read from the text `false`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runAppInProcess } from '../helpers/cli.ts';
import { createTestDatabase } from '../helpers/database.ts';

const db = await createTestDatabase();

const app = (args: string[]) =>
  runAppInProcess(args, { PATH: process.env.PATH ?? '', HOME: '/tmp', NODE_ENV: 'test', DATABASE_URL: db.url });

/** Runs with --json, expects success, and parses the one JSON document on stdout. */
async function json<T>(args: string[]): Promise<T> {
  const run = await app([...args, '--json']);
  assert.equal(run.code, 0, `app ${args.join(' ')}: ${run.stdout}${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}

describe('events:emit refused by the type’s schema', () => {
  it('says why in its one line: the first reason, and how many more', async () => {
    await json([
      'event-types:add',
      'order.checked',
      '--schema',
      '{"type":"object","required":["id"],"properties":{"amount":{"type":"integer","minimum":0}}}',
    ]);
    const one = await app(['events:emit', 'order.checked', '--data', '{"id":1,"amount":-5}']);
    assert.equal(one.code, 1);
    assert.equal(one.stderr.trim().split('\n').length, 1, one.stderr);
    assert.match(one.stderr, /APP_WEBHOOK_EVENT_DATA_INVALID|does not match/);
    assert.match(one.stderr, /\/amount must be >= 0/);
    assert.doesNotMatch(one.stderr, /more in data\.errors/);

    const two = await app(['events:emit', 'order.checked', '--data', '{"amount":1.5}']);
    assert.equal(two.code, 1);
    assert.match(
      two.stderr,
      /must have required property 'id' \(and 1 more in data\.errors\)|must be integer \(and 1 more in data\.errors\)/,
    );
  });
});

describe('event-types --no-schema', () => {
  it('event-types:update --no-schema removes the schema: any data is accepted again', async () => {
    await json(['event-types:add', 'order.paid', '--schema', '{"type":"object","required":["id"]}']);
    const refused = await app(['events:emit', 'order.paid', '--data', '{}']);
    assert.equal(refused.code, 1, 'the schema applies before the update');

    const updated = await json<{ schema: unknown }>(['event-types:update', 'order.paid', '--no-schema']);
    assert.equal(updated.schema, null);
    assert.equal((await json<{ schema: unknown }>(['event-types:show', 'order.paid'])).schema, null);
    const emitted = await app(['events:emit', 'order.paid', '--data', '{}']);
    assert.equal(emitted.code, 0, emitted.stderr);
  });

  it('event-types:update without --no-schema keeps the schema', async () => {
    await json(['event-types:add', 'order.kept', '--schema', '{"type":"object"}']);
    const updated = await json<{ schema: unknown; deprecated: boolean }>([
      'event-types:update',
      'order.kept',
      '--deprecated',
    ]);
    assert.deepEqual(updated.schema, { type: 'object' });
    assert.equal(updated.deprecated, true);
  });

  it('event-types:add --no-schema adds the type without a schema', async () => {
    const added = await json<{ name: string; schema: unknown }>(['event-types:add', 'zz.top', '--no-schema']);
    assert.equal(added.name, 'zz.top');
    assert.equal(added.schema, null);
  });
});

describe('event-types:update with nothing to change', () => {
  it('is a wrong command line: exit 2, APP_CLI_USAGE, as webhooks:update', async () => {
    await json(['event-types:add', 'order.unchanged']);
    const run = await app(['event-types:update', 'order.unchanged']);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /^app: nothing to update: give --description/m);
    const asJson = await app(['event-types:update', 'order.unchanged', '--json']);
    assert.equal((JSON.parse(asJson.stdout) as { error: { code: string } }).error.code, 'APP_CLI_USAGE');
  });
});

describe('event-types:show', () => {
  it('says (none) for a type without description, as for its examples', async () => {
    await json(['event-types:add', 'plain.type']);
    const run = await app(['event-types:show', 'plain.type']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^description: \(none\)$/m);
    assert.match(run.stdout, /^examples: +\(none\)$/m);
  });
});

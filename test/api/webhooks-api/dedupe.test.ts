/**
 * Emit deduplication by the sender's id: parallel emits with one eventId make
 * one event and one delivery per endpoint; a repeat answers the original (200, duplicate) and
 * queues nothing; ids are per owner; an id older than webhooks.dedupeWindow starts a new event.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { runAppInProcess } from '../../helpers/cli.ts';
import { call, closeAll, startApi } from './helpers.ts';

const app = await startApi();
const count = async (table: 'app_events' | 'app_webhook_deliveries', owner: string) =>
  (await app.db.sql<{ n: number }[]>`select count(*)::int as n from ${app.db.sql(table)} where owner = ${owner}`)[0].n;
const jobs = async () =>
  (await app.db.sql<{ n: number }[]>`select count(*)::int as n from graphile_worker._private_jobs`)[0].n;

describe('emit deduplication by eventId', () => {
  after(closeAll);

  it('20 parallel emits with one eventId: one event and one delivery per endpoint; the others answer the original', async () => {
    const admin = await app.token('admin');
    for (const path of ['a', 'b'])
      await call('POST', `${app.api}/webhooks`, {
        token: admin,
        body: { url: `https://receiver.example/${path}`, events: ['order.*'], owner: 'dedupe' },
      });
    const jobsBefore = await jobs();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        call('POST', `${app.api}/events`, {
          token: admin,
          body: { type: 'order.paid', owner: 'dedupe', eventId: 'order-42-paid', data: { n: 42 } },
        }),
      ),
    );
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [...Array(19).fill(200), 202].sort());
    assert.equal(new Set(answers.map((answer) => answer.body.externalId)).size, 1, 'every answer names the same event');
    assert.equal(answers.filter((answer) => answer.body.duplicate).length, 19);
    assert.ok(answers.every((answer) => answer.body.deliveryCount === 2));
    assert.equal(await count('app_events', 'dedupe'), 1);
    assert.equal(await count('app_webhook_deliveries', 'dedupe'), 2);
    assert.equal((await jobs()) - jobsBefore, 2, 'two jobs queued, not forty');
  });

  it('ids are per owner; past webhooks.dedupeWindow the same id makes a new event; a bad id is 422 APP_WEBHOOK_EVENT_ID_INVALID', async () => {
    const admin = await app.token('admin');
    for (const owner of ['one', 'two'])
      await call('POST', `${app.api}/webhooks`, {
        token: admin,
        body: { url: `https://receiver.example/${owner}`, events: ['*'], owner },
      });
    const first = await call('POST', `${app.api}/events`, {
      token: admin,
      body: { type: 'a.b', owner: 'one', eventId: 'shared-id' },
    });
    const other = await call('POST', `${app.api}/events`, {
      token: admin,
      body: { type: 'a.b', owner: 'two', eventId: 'shared-id' },
    });
    assert.equal(first.status, 202);
    assert.equal(other.status, 202, "another owner's id space");
    assert.notEqual(first.body.externalId, other.body.externalId);
    // the original is older than the window (24 h)
    await app.db
      .sql`update app_events set created_at = now() - interval '25 hours' where id = ${first.body.externalId}`;
    const later = await call('POST', `${app.api}/events`, {
      token: admin,
      body: { type: 'a.b', owner: 'one', eventId: 'shared-id' },
    });
    assert.equal(later.status, 202);
    assert.notEqual(later.body.externalId, first.body.externalId);
    const repeat = await call('POST', `${app.api}/events`, {
      token: admin,
      body: { type: 'a.b', owner: 'one', eventId: 'shared-id' },
    });
    assert.equal(repeat.body.externalId, later.body.externalId, 'the id now names the new event');
    for (const eventId of ['', 'x'.repeat(65), 'has space', 12]) {
      const bad = await call('POST', `${app.api}/events`, {
        token: admin,
        body: { type: 'a.b', owner: 'one', eventId },
      });
      assert.equal(bad.status, 422, String(eventId));
      assert.equal(bad.body.code, 'APP_WEBHOOK_EVENT_ID_INVALID');
    }
  });

  it('GraphQL and the CLI take eventId too', async () => {
    const admin = await app.token('admin');
    await call('POST', `${app.api}/webhooks`, {
      token: admin,
      body: { url: 'https://receiver.example/g', events: ['*'], owner: 'gql' },
    });
    const mutation =
      'mutation { emitWebhookEvent(input: {type: "x.y", owner: "gql", eventId: "g-1"}) { duplicate event { externalId } } }';
    const gql = async () =>
      (
        await call('POST', `${app.base}/_app/gql`, {
          token: admin,
          headers: { Accept: 'application/json' },
          body: { query: mutation },
        })
      ).body.data.emitWebhookEvent;
    const once = await gql();
    const twice = await gql();
    assert.equal(once.duplicate, false);
    assert.equal(twice.duplicate, true);
    assert.equal(twice.event.externalId, once.event.externalId);
    const env = { PATH: process.env.PATH ?? '', HOME: '/tmp', NODE_ENV: 'test', DATABASE_URL: app.db.url };
    const cli = await runAppInProcess(['events:emit', 'x.y', '--owner', 'gql', '--event-id', 'g-1'], env);
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /was emitted already; nothing queued/);
    assert.equal(await count('app_events', 'gql'), 1);
  });
});

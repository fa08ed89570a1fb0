/**
 * A filter's sample event on every face (`POST /webhooks/filter-test`, GraphQL's
 * `testWebhookFilter`, `app webhooks:filter-test`) against a real web process: a sample is
 * refused exactly when an emit of it would be, by the emit's code (a timestamp no emit can stamp
 * included), as 422 problem+json, a GraphQL error's `extensions.code`, and a one-line reason with
 * exit code 1; a good sample is answered with the same documented shape on every face,
 * `{matches, failed}` (REST adds its `collection` link), without `externalId`.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { runAppInProcess } from '../../helpers/cli.ts';
import { call, startApi } from './helpers.ts';

const app = await startApi();
let token: string;

before(async () => {
  token = await app.token('member', 'acme');
  const typed = await call('POST', `${app.api}/event-types`, {
    token: await app.token('admin'),
    body: { name: 'sample.typed', schema: { type: 'object', required: ['n'], properties: { n: { type: 'number' } } } },
  });
  assert.equal(typed.status, 201, typed.text);
});

const QUERY =
  'query ($filter: JSON, $event: JSON) { testWebhookFilter(filter: $filter, event: $event) { matches failed { path operator at } } }';

/** The REST answer of a try; `event` as JSON text (a number past ±1.8e308 reaches the server as written). */
const rest = (event: string, filter: unknown = null) =>
  call('POST', `${app.api}/webhooks/filter-test`, {
    token,
    body: `{"filter": ${JSON.stringify(filter)}, "event": ${event}}`,
  });

/** The GraphQL answer of a try. */
const graphql = (event: string, filter: unknown = null) =>
  call('POST', `${app.base}/_app/gql`, {
    token,
    headers: { Accept: 'application/json' },
    body: `{"query": ${JSON.stringify(QUERY)}, "variables": {"filter": ${JSON.stringify(filter)}, "event": ${event}}}`,
  });

/** `app webhooks:filter-test` against this file's database. */
const cli = (event: string, filter: unknown = null, json = false) =>
  runAppInProcess(
    ['webhooks:filter-test', '--filter', JSON.stringify(filter), '--event', event, ...(json ? ['--json'] : [])],
    { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NODE_ENV: 'test', DATABASE_URL: app.db.url },
  );

/** The refusal every face gives for the sample `event` (JSON text), checked to say it alike. */
async function refusedEverywhere(event: string): Promise<{ code: string; field: string; detail: string }> {
  const answer = await rest(event);
  assert.equal(answer.status, 422, `${event}: ${answer.text}`);
  assert.match(String(answer.headers.get('content-type')), /^application\/problem\+json/, event);
  const { code, detail } = answer.body;
  const gql = await graphql(event);
  assert.equal(gql.body.data, null, event);
  assert.equal(gql.body.errors?.[0]?.extensions?.code, code, `${event}: GraphQL`);
  assert.deepEqual(gql.body.errors?.[0]?.extensions?.data, answer.body.data, `${event}: GraphQL's data is REST's`);
  const text = await cli(event);
  assert.equal(text.code, 1, `${event}: the CLI's exit code for refused input`);
  assert.equal(text.stdout, '', event);
  assert.equal(text.stderr, `app: ${detail}\n`, `${event}: one line, REST's reason`);
  const json = await cli(event, null, true);
  assert.equal(JSON.parse(json.stdout).error.code, code, `${event}: CLI --json`);
  return { code, field: answer.body.data.field, detail };
}

describe('a filter tried on a sample the emit would refuse is refused on every face, by the emit’s code', () => {
  it('a timestamp no emit can stamp: 422 APP_WEBHOOK_EVENT_INVALID, field timestamp, on REST, GraphQL and the CLI', async () => {
    for (const timestamp of ['yesterday', 5, '99999-01-01T00:00:00Z', '2026-02-30T10:00:00Z', '0000-01-01T00:00:00Z']) {
      const refused = await refusedEverywhere(JSON.stringify({ type: 'order.created', timestamp }));
      assert.equal(refused.code, 'APP_WEBHOOK_EVENT_INVALID', String(timestamp));
      assert.equal(refused.field, 'timestamp', String(timestamp));
      assert.match(refused.detail, /^invalid webhook event timestamp: /);
    }
  });

  it('a type or data the emit refuses: every face gives the code POST /events gives for the same event', async () => {
    for (const event of [
      '{"type": "Not a name!"}',
      '{"data": {}}',
      '{"type": "sample.typed", "data": {"n": "one"}}',
      // read as Infinity, which JSON would carry to the receiver as null
      '{"type": "order.created", "data": {"n": 1e400}}',
    ]) {
      const emitted = await call('POST', `${app.api}/events`, { token, body: event });
      assert.equal(emitted.status, 422, `${event}: ${emitted.text}`);
      const refused = await refusedEverywhere(event);
      assert.deepEqual(
        { code: refused.code, field: refused.field },
        { code: emitted.body.code, field: emitted.body.data.field },
        event,
      );
    }
  });
});

describe('a good sample is answered with the documented shape, the same on every face', () => {
  it('{matches, failed} (REST: and its collection link), no externalId; the timestamp is seen as a delivery body writes it', async () => {
    const event = JSON.stringify({ type: 'sample.typed', timestamp: '2026-01-31T12:00:00+02:00', data: { n: 1 } });
    for (const [filter, expected] of [
      [
        { timestamp: '2026-01-31T10:00:00.000Z', 'data.n': 1 },
        { matches: true, failed: null },
      ],
      [
        { timestamp: { $gte: '2026-01-31T12:00:00' } },
        { matches: false, failed: { path: 'timestamp', operator: '$gte', at: 'timestamp.$gte' } },
      ],
    ] as const) {
      const answer = await rest(event, filter);
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(answer.body, { _links: { collection: { href: '/api/v1/webhooks' } }, ...expected });
      assert.ok(!('externalId' in answer.body), 'a try is no record');
      const gql = await graphql(event, filter);
      assert.deepEqual(gql.body, { data: { testWebhookFilter: expected } });
      const run = await cli(event, filter, true);
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(JSON.parse(run.stdout), expected);
    }
  });
});

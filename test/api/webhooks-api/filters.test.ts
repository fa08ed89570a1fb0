/**
 * Subscription filters over HTTP with the real worker and real receivers on the loopback: two
 * endpoints with different filters, five events, each receiver gets exactly what its filter
 * selects; the filter on create, read and update (null removes it); the event's page and the
 * metric say what the filters left out; hostile filters are refused at save and none slows an
 * emit; `POST /webhooks/filter-test` and `app webhooks:filter-test` answer what the emit decided;
 * a viewer may try but not set a filter, and a tenant cannot try another tenant's events.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../../helpers/poll.ts';
import { runAppInProcess } from '../../helpers/cli.ts';
import { parseMetrics, sampleValue } from '../../helpers/prometheus.ts';
import { call, closeAll, receiver, startApi, startDeliveryWorker, type Receiver } from './helpers.ts';

const app = await startApi();
await startDeliveryWorker(app);

let member: string;
let viewer: string;
let globex: string;
let europe: Receiver;
let large: Receiver;
const endpoints: Record<string, string> = {};

const EUROPE = { 'data.customer.country': { $in: ['FR', 'DE'] } };
const LARGE = { $and: [{ 'data.amount': { $gte: 100 } }, { 'data.test': { $ne: true } }] };

/** The five events, and which of the two endpoints each must reach. */
const EVENTS = [
  { n: 1, data: { customer: { country: 'FR' }, amount: 20 }, europe: true, large: false },
  { n: 2, data: { customer: { country: 'US' }, amount: 500 }, europe: false, large: true },
  { n: 3, data: { customer: { country: 'DE' }, amount: 100 }, europe: true, large: true },
  { n: 4, data: { customer: { country: 'IT' }, amount: '900' }, europe: false, large: false },
  { n: 5, data: { customer: { country: 'FR' }, amount: 1000, test: true }, europe: true, large: false },
];

/** `app …` in this process against this file's database. */
function cli(args: string[]) {
  return runAppInProcess(args, {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    NODE_ENV: 'test',
    DATABASE_URL: app.db.url,
  });
}

before(async () => {
  member = await app.token('member', 'acme');
  viewer = await app.token('viewer', 'acme');
  globex = await app.token('member', 'globex');
  europe = await receiver('/europe');
  large = await receiver('/large');
});

describe('subscription filters over HTTP, delivered by the real worker', () => {
  it('the filter is given on create and shown on read', async () => {
    for (const [name, url, filter] of [
      ['europe', europe.url, EUROPE],
      ['large', large.url, LARGE],
    ] as const) {
      const created = await call('POST', `${app.api}/webhooks`, {
        token: member,
        body: { url, events: ['order.*'], filter },
      });
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(created.body.filter, filter);
      endpoints[name] = created.body.externalId;
      const shown = await call('GET', `${app.api}/webhooks/${created.body.externalId}`, { token: viewer });
      assert.deepEqual(shown.body.filter, filter);
    }
  });

  it('five events: each receiver gets exactly the events its filter selects; each event says how many filters left it out', async () => {
    const emitted = [];
    for (const event of EVENTS) {
      const answer = await call('POST', `${app.api}/events`, {
        token: member,
        body: { type: 'order.created', data: { n: event.n, ...event.data } },
      });
      assert.equal(answer.status, 202, answer.text);
      const expected = Number(event.europe) + Number(event.large);
      assert.equal(answer.body.deliveryCount, expected, `event ${event.n}`);
      assert.equal(answer.body.filteredOut, 2 - expected, `event ${event.n}`);
      assert.ok(answer.body.externalId, 'written even when every filter left it out');
      emitted.push(answer.body);
    }
    // every delivery done: nothing else is on its way
    for (const answer of emitted) {
      await eventually(
        async () => {
          const event = await call('GET', `${app.api}/events/${answer.externalId}`, { token: viewer });
          return event.body.deliveryCounts.done === answer.deliveryCount ? event : undefined;
        },
        15_000,
        `the deliveries of ${answer.externalId}`,
      );
    }
    const numbers = (hook: Receiver) =>
      hook.requests.map((request) => JSON.parse(request.body).data.n as number).sort((a, b) => a - b);
    assert.deepEqual(numbers(europe), [1, 3, 5]);
    assert.deepEqual(numbers(large), [2, 3]);
    const shown = await Promise.all(
      emitted.map((answer) => call('GET', `${app.api}/events/${answer.externalId}`, { token: viewer })),
    );
    assert.deepEqual(
      shown.map((event) => event.body.filteredOut),
      [1, 1, 0, 2, 1],
    );
    const metrics = parseMetrics(await app.web.metrics.registry.metrics());
    assert.equal(sampleValue(metrics, 'app_deliveries_filtered_total', {}), 5);
  });

  it('the try route, the command and the emit give the same answers (one core function)', async () => {
    for (const event of EVENTS) {
      const sample = { type: 'order.created', data: { n: event.n, ...event.data } };
      for (const [filter, expected] of [
        [EUROPE, event.europe],
        [LARGE, event.large],
      ] as const) {
        const tried = await call('POST', `${app.api}/webhooks/filter-test`, {
          token: viewer,
          body: { filter, event: sample },
        });
        assert.equal(tried.status, 200, tried.text);
        assert.equal(tried.body.matches, expected, `event ${event.n}, filter ${JSON.stringify(filter)}`);
        assert.deepEqual(tried.body._links, { collection: { href: '/api/v1/webhooks' } }, 'every link resolves');
        const run = await cli([
          'webhooks:filter-test',
          '--filter',
          JSON.stringify(filter),
          '--event',
          JSON.stringify(sample),
          '--json',
        ]);
        assert.equal(run.code, 0, run.stderr);
        assert.deepEqual(JSON.parse(run.stdout), { matches: tried.body.matches, failed: tried.body.failed });
      }
    }
    const miss = await call('POST', `${app.api}/webhooks/filter-test`, {
      token: member,
      body: { filter: LARGE, event: { type: 'order.created', data: { amount: 5 } } },
    });
    assert.deepEqual(miss.body.failed, { path: 'data.amount', operator: '$gte', at: '$and.0.data.amount.$gte' });
    const text = await cli([
      'webhooks:filter-test',
      '--filter',
      JSON.stringify(LARGE),
      '--event',
      '{"type":"a","data":{"amount":5}}',
    ]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /matches: no\nfailed: {2}\$gte on data\.amount \(at \$and\.0\.data\.amount\.\$gte\)/);
  });

  it('a retained event is tried in the caller’s tenant: its own answers, another tenant’s is a 404', async () => {
    const [latest] = (await call('GET', `${app.api}/events?per_page=1`, { token: member })).body._embedded.events;
    const own = await call('POST', `${app.api}/webhooks/filter-test`, {
      token: viewer,
      body: { filter: EUROPE, eventId: latest.externalId },
    });
    assert.equal(own.status, 200, own.text);
    assert.equal(own.body.matches, true, 'event 5 is from FR');
    const theirs = await call('POST', `${app.api}/webhooks/filter-test`, {
      token: globex,
      body: { filter: EUROPE, eventId: latest.externalId },
    });
    assert.equal(theirs.status, 404, theirs.text);
    assert.equal(theirs.body.code, 'APP_WEBHOOK_EVENT_NOT_FOUND');
    const recent = await call('POST', `${app.base}/_app/gql`, {
      token: globex,
      headers: { Accept: 'application/json' },
      body: { query: `{ webhookEndpoint(id: "${endpoints.europe}") { recentEvents { externalId } } }` },
    });
    assert.equal(
      recent.body.data?.webhookEndpoint ?? null,
      null,
      'another tenant’s endpoint and its events are out of reach',
    );
    const mine = await call('POST', `${app.base}/_app/gql`, {
      token: viewer,
      headers: { Accept: 'application/json' },
      body: { query: `{ webhookEndpoint(id: "${endpoints.europe}") { recentEvents(limit: 5) { externalId type } } }` },
    });
    assert.equal(mine.body.data.webhookEndpoint.recentEvents.length, 5);
    assert.equal(mine.body.data.webhookEndpoint.recentEvents[0].externalId, latest.externalId);
  });

  it('a viewer cannot set a filter (403, nothing changed); a member replaces it, and null removes it', async () => {
    const refused = await call('PATCH', `${app.api}/webhooks/${endpoints.europe}`, {
      token: viewer,
      body: { filter: null },
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'APP_FORBIDDEN');
    assert.deepEqual(
      (await call('GET', `${app.api}/webhooks/${endpoints.europe}`, { token: viewer })).body.filter,
      EUROPE,
    );
    const replaced = await call('PATCH', `${app.api}/webhooks/${endpoints.large}`, {
      token: member,
      body: { filter: { 'data.amount': { $gte: 1000 } } },
    });
    assert.deepEqual(replaced.body.filter, { 'data.amount': { $gte: 1000 } });
    const removed = await call('PATCH', `${app.api}/webhooks/${endpoints.large}`, {
      token: member,
      body: { filter: null },
    });
    assert.equal(removed.status, 200, removed.text);
    assert.equal(removed.body.filter, null);
    const graphql = await call('POST', `${app.base}/_app/gql`, {
      token: member,
      headers: { Accept: 'application/json' },
      body: {
        query:
          'mutation ($id: ID!, $input: UpdateWebhookEndpointInput!) { updateWebhookEndpoint(id: $id, input: $input) { filter } }',
        variables: { id: endpoints.large, input: { filter: { type: 'order.created' } } },
      },
    });
    assert.deepEqual(graphql.body.data.updateWebhookEndpoint.filter, { type: 'order.created' });
  });
});

describe('hostile filters are refused at save, and none slows an emit', () => {
  after(closeAll);

  /** The answer of saving `filter` on the europe endpoint, which must keep its filter. */
  async function save(filter: unknown, body?: string) {
    const answer = await call('PATCH', `${app.api}/webhooks/${endpoints.europe}`, {
      token: member,
      body: body ?? { filter },
    });
    const kept = await call('GET', `${app.api}/webhooks/${endpoints.europe}`, { token: member });
    assert.deepEqual(kept.body.filter, EUROPE, 'the filter is unchanged');
    return answer;
  }

  it('unknown operators and $where are refused with the path and the reason', async () => {
    for (const [filter, path, reason] of [
      [{ $where: 'sleep(10000)' }, '$where', /unknown operator \$where/],
      [
        { 'data.a': { $function: { body: 'while(1){}', args: [], lang: 'js' } } },
        'data.a.$function',
        /unknown operator/,
      ],
      [{ $expr: { $eq: [1, 1] } }, '$expr', /unknown operator \$expr/],
      [{ 'data.a': { $regex: '(a)\\1' } }, 'data.a.$regex', /RE2 syntax/],
    ] as const) {
      const answer = await save(filter);
      assert.equal(answer.status, 422, answer.text);
      assert.match(String(answer.headers.get('content-type')), /^application\/problem\+json/);
      assert.equal(answer.body.code, 'APP_WEBHOOK_FILTER_INVALID');
      assert.equal(answer.body.data.path, path);
      assert.match(answer.body.data.reason, reason);
    }
  });

  it('deep nesting: 10,000 levels are refused quickly', async () => {
    const body = `{"filter":${'{"$not":'.repeat(10_000)}{"data.a":1}${'}'.repeat(10_000)}}`;
    const started = performance.now();
    const answer = await save(undefined, body);
    assert.ok([400, 422].includes(answer.status), answer.text);
    if (answer.status === 422) assert.match(answer.body.data.reason, /deeper than 8 levels/);
    assert.ok(performance.now() - started < 30_000);
  });

  it('a 1 MB filter: the body limit or the size limit answers, never a save', async () => {
    const answer = await save({ 'data.a': 'x'.repeat(1_048_576) });
    assert.ok([413, 422].includes(answer.status), answer.text);
    const small = await save({ 'data.a': 'x'.repeat(5_000) });
    assert.equal(small.status, 422);
    assert.match(small.body.data.reason, /longer than 4096 bytes/);
  });

  it('a pattern that backtracks catastrophically elsewhere is run in linear time: an emit with it stays quick', async () => {
    const created = await call('POST', `${app.api}/webhooks`, {
      token: globex,
      body: { url: large.url, events: ['text.*'], filter: { 'data.s': { $regex: '(a+)+$' } } },
    });
    assert.equal(created.status, 201, created.text);
    for (const s of [`${'a'.repeat(4000)}b`, `${'a'.repeat(200_000)}b`]) {
      const started = performance.now();
      const emitted = await call('POST', `${app.api}/events`, {
        token: globex,
        body: { type: 'text.sent', data: { s } },
      });
      assert.equal(emitted.status, 202, emitted.text);
      assert.equal(emitted.body.deliveryCount, 0);
      assert.equal(emitted.body.filteredOut, 1);
      assert.ok(performance.now() - started < 30_000, `the emit took ${performance.now() - started} ms`);
    }
  });
});

/**
 * Every listing pages no deeper than `api.maxPageOffset` records (PostgreSQL reads every record
 * a page skips): events, deliveries, endpoints, event types and tokens. A page starting further
 * in is 422 `APP_PAGE_TOO_DEEP` on REST and in GraphQL, naming the filters to narrow with where
 * the listing has any, and no paging link points past the deepest page answered.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, closeAll, startApi } from './helpers.ts';

// 6 deliveries of 6 events, 6 endpoints, 6 event types, 6 tokens; with 4 the deepest page of 2
// is page 3 (rows 5 and 6), of 1 page 5
const app = await startApi({ api: { maxPageOffset: 4 } });
const pageOf = (href: string) => Number(new URL(href, app.base).searchParams.get('page'));

describe('paging depth', () => {
  let admin = '';
  let endpoint = '';
  before(async () => {
    admin = await app.token('admin');
    const made = await call('POST', `${app.api}/webhooks`, {
      token: admin,
      body: { url: 'https://receiver.example/in', events: ['*'] },
    });
    assert.equal(made.status, 201, made.text);
    endpoint = made.body.externalId;
    for (let i = 0; i < 6; i++) {
      const emitted = await call('POST', `${app.api}/events`, { token: admin, body: { type: 'order.created' } });
      assert.equal(emitted.status, 202, emitted.text);
    }
    for (let i = 1; i < 6; i++) {
      const more = await call('POST', `${app.api}/webhooks`, {
        token: admin,
        body: { url: `https://receiver.example/in/${i}`, events: ['*'] },
      });
      assert.equal(more.status, 201, more.text);
    }
    for (let i = 0; i < 6; i++) {
      const type = await call('POST', `${app.api}/event-types`, { token: admin, body: { name: `order.step${i}` } });
      assert.equal(type.status, 201, type.text);
    }
    for (let i = 1; i < 6; i++) await app.token('viewer', 'acme');
  });
  after(closeAll);

  /** A GraphQL query as the admin. */
  const gql = (query: string) =>
    call('POST', `${app.base}/_app/gql`, { token: admin, headers: { Accept: 'application/json' }, body: { query } });

  it('REST answers the deepest page and refuses the next with 422 APP_PAGE_TOO_DEEP naming the filters', async () => {
    for (const path of ['/deliveries', '/events', `/webhooks/${endpoint}/deliveries`]) {
      const deepest = await call('GET', `${app.api}${path}?per_page=2&page=3`, { token: admin });
      assert.equal(deepest.status, 200, `${path}: ${deepest.text}`);
      const past = await call('GET', `${app.api}${path}?per_page=2&page=4`, { token: admin });
      assert.equal(past.status, 422, `${path}: ${past.text}`);
      assert.match(past.headers.get('content-type') ?? '', /application\/problem\+json/);
      assert.equal(past.body.code, 'APP_PAGE_TOO_DEEP');
      assert.match(past.body.detail ?? past.body.title, /narrow the listing with since\/until/);
      assert.equal(past.body.deepestPage ?? past.body.data?.deepestPage, 3, past.text);
    }
    const far = await call('GET', `${app.api}/deliveries?per_page=100&page=1000000000`, { token: admin });
    assert.equal(far.status, 422, far.text);
    assert.equal(far.body.code, 'APP_PAGE_TOO_DEEP');
  });

  it('REST endpoints, event types and tokens answer the deepest page and refuse the next with 422 APP_PAGE_TOO_DEEP', async () => {
    for (const [path, narrow] of [
      ['/webhooks', /narrow the listing with owner, enabled, events/],
      ['/event-types', /the deepest page is 3\)$/],
      ['/tokens', /the deepest page is 3\)$/],
    ] as const) {
      const deepest = await call('GET', `${app.api}${path}?per_page=2&page=3`, { token: admin });
      assert.equal(deepest.status, 200, `${path}: ${deepest.text}`);
      assert.equal((Object.values(deepest.body._embedded)[0] as unknown[]).length, 2, `${path}: ${deepest.text}`);
      const past = await call('GET', `${app.api}${path}?per_page=2&page=4`, { token: admin });
      assert.equal(past.status, 422, `${path}: ${past.text}`);
      assert.match(past.headers.get('content-type') ?? '', /application\/problem\+json/);
      assert.equal(past.body.code, 'APP_PAGE_TOO_DEEP', past.text);
      assert.match(past.body.detail, narrow, past.text);
      assert.equal(past.body.data?.deepestPage, 3, past.text);
    }
  });

  it('REST paging links of endpoints, event types and tokens stop at the deepest page answered', async () => {
    for (const path of ['/webhooks', '/event-types', '/tokens']) {
      const first = await call('GET', `${app.api}${path}?per_page=1`, { token: admin });
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.total, 6, `${path}: ${first.text}`);
      assert.equal(pageOf(first.body._links.last.href), 5, path);
      const deepest = await call('GET', `${app.api}${path}?per_page=1&page=5`, { token: admin });
      assert.equal(deepest.status, 200, deepest.text);
      assert.equal(deepest.body._links.next, undefined, `${path}: ${JSON.stringify(deepest.body._links)}`);
      assert.doesNotMatch(deepest.headers.get('link') ?? '', /rel="next"/, path);
    }
  });

  it('REST paging links stop at the deepest page answered', async () => {
    // 6 deliveries, 1 a page: 6 pages, of which the deepest answered is 5
    const first = await call('GET', `${app.api}/deliveries?per_page=1`, { token: admin });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.total, 6);
    assert.equal(pageOf(first.body._links.last.href), 5);
    const deepest = await call('GET', first.body._links.last.href.replace(/^\/api\/v1/, app.api), { token: admin });
    assert.equal(deepest.status, 200, deepest.text);
    assert.equal(deepest.body._links.next, undefined, JSON.stringify(deepest.body._links));
    assert.equal(pageOf(deepest.body._links.prev.href), 4);
  });

  it('GraphQL says the deepest page and refuses a page past it with APP_PAGE_TOO_DEEP', async () => {
    const query = (page: number) =>
      gql(
        `{ webhookDeliveries(page: ${page}, perPage: 2) { page pages deepestPage nodes { id } } webhookEvents(page: ${page}, perPage: 2) { deepestPage nodes { id } } }`,
      );
    const deepest = await query(3);
    assert.equal(deepest.body.errors, undefined, deepest.text);
    assert.equal(deepest.body.data.webhookDeliveries.deepestPage, 3);
    assert.equal(deepest.body.data.webhookDeliveries.nodes.length, 2);
    assert.equal(deepest.body.data.webhookEvents.deepestPage, 3);
    const past = await query(4);
    const codes = (past.body.errors ?? []).map((error: { extensions?: { code?: string } }) => error.extensions?.code);
    assert.equal(codes[0], 'APP_PAGE_TOO_DEEP', past.text);
  });

  it('GraphQL endpoints and event types say the deepest page and refuse a page past it with APP_PAGE_TOO_DEEP', async () => {
    const deepest = await gql(
      '{ webhookEndpoints(page: 3, perPage: 2) { deepestPage nodes { id } } eventTypes(page: 3, perPage: 2) { deepestPage nodes { name } } }',
    );
    assert.equal(deepest.body.errors, undefined, deepest.text);
    assert.equal(deepest.body.data.webhookEndpoints.deepestPage, 3);
    assert.equal(deepest.body.data.webhookEndpoints.nodes.length, 2);
    assert.equal(deepest.body.data.eventTypes.deepestPage, 3);
    assert.equal(deepest.body.data.eventTypes.nodes.length, 2);
    for (const field of [
      'webhookEndpoints(page: 4, perPage: 2) { page }',
      'eventTypes(page: 4, perPage: 2) { page }',
    ]) {
      const past = await gql(`{ ${field} }`);
      assert.equal(past.body.errors?.[0]?.extensions?.code, 'APP_PAGE_TOO_DEEP', past.text);
      assert.equal(past.body.errors?.[0]?.extensions?.data?.deepestPage, 3, past.text);
    }
  });
});

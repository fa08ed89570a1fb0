/**
 * The query parameters of the webhook and token APIs: every route declares the ones it reads,
 * any other (a misspelt filter, a bracketed form) is 422 `APP_QUERY_PARAMETER_UNKNOWN` naming it
 * as given with the route's accepted list, every declared one is accepted, and the paging links
 * of every listing carry only parameters the route accepts. The routes are walked from the web
 * process's own mounted table, so a new route or a new filter is covered without being listed here.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { MountedRoute } from '../../../api/model-framework/routing/router.ts';
import { acceptedNames, declaredQuery } from '../../../api/model-framework/routing/query-parameters.ts';
import { call, closeAll, createEndpoint, startApi, type Answer } from './helpers.ts';

const app = await startApi();
const URL = 'http://127.0.0.1:9/hook';

/** A value each declared parameter is sent with; a parameter missing here fails the walk, so a new filter gets one. */
const SAMPLES: Record<string, (ids: Ids) => string> = {
  owner: () => 'acme',
  without_owner: () => 'false',
  enabled: () => 'true',
  events: () => 'order.created',
  status: () => 'pending',
  type: () => 'order.created',
  since: () => '2020-01-01T00:00:00Z',
  until: () => '2100-01-01T00:00:00Z',
  endpoint: (ids) => ids.endpoint,
  event: (ids) => ids.event,
  deprecated: () => 'false',
  reveal: () => 'headers',
  page: () => '1',
  per_page: () => '1',
};

interface Ids {
  endpoint: string;
  event: string;
  delivery: string;
  eventType: string;
  token: string;
}

/** Every route of the product's APIs (the server mounts only those here: the test gives no application routes). */
const mounted = (): readonly MountedRoute[] => {
  const api = app.web.api;
  assert.ok(api, 'the API is built');
  return api.mounted;
};

const accepted = (route: MountedRoute) => {
  const declared = declaredQuery(route.action);
  assert.ok(declared, `${route.route.method} ${route.route.path} declares its query parameters`);
  return declared;
};

/** The route's path with its `:externalId` filled in for the record kind it serves. */
function pathOf(route: MountedRoute, ids: Ids): string {
  const path = route.route.path;
  const kind = /^\/api\/v1\/(webhooks|events|deliveries|event-types|tokens)\//.exec(path)?.[1];
  const id =
    kind === 'webhooks'
      ? ids.endpoint
      : kind === 'events'
        ? ids.event
        : kind === 'deliveries'
          ? ids.delivery
          : kind === 'event-types'
            ? ids.eventType
            : ids.token;
  return path.replace(':externalId', encodeURIComponent(id));
}

const query = (entries: ReadonlyArray<[string, string]>) => new URLSearchParams([...entries]).toString();

/** A 422 `APP_QUERY_PARAMETER_UNKNOWN` naming `parameter`, with the route's accepted list. */
function assertRefused(answer: Answer, parameter: string, names: readonly string[], what: string): void {
  assert.equal(answer.status, 422, `${what}: ${answer.text}`);
  assert.match(String(answer.headers.get('content-type')), /application\/problem\+json/);
  assert.equal(answer.body.code, 'APP_QUERY_PARAMETER_UNKNOWN', what);
  assert.equal(answer.body.data.parameter, parameter, what);
  assert.deepEqual(answer.body.data.accepted, [...names], what);
  assert.ok(answer.body.detail.includes(parameter), `${what}: the message names ${parameter}`);
}

describe('query parameters of the webhook and token APIs', () => {
  after(closeAll);
  let admin: string;
  let ids: Ids;

  before(async () => {
    admin = await app.token('admin');
    const endpoints = [];
    for (let i = 0; i < 3; i += 1)
      endpoints.push(await createEndpoint(app, admin, { url: URL, events: ['order.*'], owner: 'acme' }));
    let event = '';
    for (let i = 0; i < 3; i += 1) {
      const emitted = await call('POST', `${app.api}/events`, {
        token: admin,
        body: { type: 'order.created', owner: 'acme', data: { i } },
      });
      assert.equal(emitted.status, 202, emitted.text);
      event = emitted.body.externalId;
    }
    const deliveries = await call('GET', `${app.api}/deliveries?per_page=1`, { token: admin });
    const type = await call('POST', `${app.api}/event-types`, { token: admin, body: { name: 'order.created' } });
    assert.equal(type.status, 201, type.text);
    const token = await call('POST', `${app.api}/tokens`, { token: admin, body: { name: 'spare', role: 'admin' } });
    assert.equal(token.status, 201, token.text);
    ids = {
      endpoint: endpoints[0].externalId,
      event,
      delivery: deliveries.body._embedded.deliveries[0].externalId,
      eventType: 'order.created',
      token: token.body.externalId,
    };
  });

  it('every route declares the query parameters it reads', () => {
    const routes = mounted();
    assert.ok(routes.length >= 20, `${routes.length} routes mounted`);
    for (const route of routes) accepted(route);
  });

  it('every route refuses a parameter it does not accept: 422 naming it, with the accepted list, before the action runs', async () => {
    for (const route of mounted()) {
      const names = acceptedNames(accepted(route));
      const what = `${route.route.method} ${route.route.path}`;
      const answer = await call(route.route.method, `${app.base}${pathOf(route, ids)}?stauts=dead`, {
        token: admin,
        ...(route.route.method === 'GET' || route.route.method === 'DELETE' ? {} : { body: {} }),
      });
      assertRefused(answer, 'stauts', names, what);
    }
    // the refused DELETEs and POSTs did nothing
    assert.equal((await call('GET', `${app.api}/webhooks/${ids.endpoint}`, { token: admin })).status, 200);
    const tokens = await call('GET', `${app.api}/tokens?per_page=100`, { token: admin });
    const spare = tokens.body._embedded.tokens.find((token: { externalId: string }) => token.externalId === ids.token);
    assert.equal(spare.revokedAt, null, 'the token was not revoked');
  });

  it('each listing refuses a misspelt and a bracketed parameter, named as given, beside accepted ones', async () => {
    const listings = mounted().filter((route) => route.route.method === 'GET' && accepted(route).paged);
    assert.ok(listings.length >= 6, `${listings.length} listings`);
    for (const route of listings) {
      const names = acceptedNames(accepted(route));
      const base = `${app.base}${pathOf(route, ids)}`;
      const what = `GET ${route.route.path}`;
      for (const [given, named] of [
        ['owner[]=acme', 'owner[]'],
        ['owner[0]=acme', 'owner[0]'],
        ['owner%5B%5D=acme', 'owner[]'],
        ['status[]=dead', 'status[]'],
        ['per_page=1&stauts=dead', 'stauts'],
        ['page=1&Owner=acme', 'Owner'],
        ['=acme', ''],
      ]) {
        assertRefused(await call('GET', `${base}?${given}`, { token: admin }), named, names, `${what}?${given}`);
      }
    }
  });

  it('every declared parameter of every GET route is accepted, alone and all together', async () => {
    for (const route of mounted().filter((route) => route.route.method === 'GET')) {
      const names = acceptedNames(accepted(route));
      const base = `${app.base}${pathOf(route, ids)}`;
      for (const name of names) {
        const sample = SAMPLES[name];
        assert.ok(sample, `a sample value for "${name}" (GET ${route.route.path}) in SAMPLES`);
        const answer = await call('GET', `${base}?${query([[name, sample(ids)]])}`, { token: admin });
        assert.equal(answer.status, 200, `GET ${route.route.path}?${name}: ${answer.text}`);
      }
      const all = await call('GET', `${base}?${query(names.map((name) => [name, SAMPLES[name](ids)]))}`, {
        token: admin,
      });
      assert.equal(all.status, 200, `GET ${route.route.path} with ${names.join(', ')}: ${all.text}`);
    }
  });

  it("the paging links of every listing carry only the route's parameters, and each answers 200", async () => {
    const listings = mounted().filter((route) => route.route.method === 'GET' && accepted(route).paged);
    for (const route of listings) {
      const declared = accepted(route);
      const names = acceptedNames(declared);
      const base = `${app.base}${pathOf(route, ids)}`;
      const filtered = declared.parameters.map((name): [string, string] => [name, SAMPLES[name](ids)]);
      for (const given of [
        query([
          ['per_page', '1'],
          ['page', '2'],
        ]),
        query([...filtered, ['per_page', '1'], ['page', '2']]),
      ]) {
        const page = await call('GET', `${base}?${given}`, { token: admin });
        assert.equal(page.status, 200, `GET ${route.route.path}?${given}: ${page.text}`);
        const links = page.body._links as Record<string, { href: string }>;
        for (const rel of ['self', 'first', 'prev', 'last', ...(links.next ? ['next'] : [])]) {
          const href = links[rel]?.href;
          assert.ok(href, `GET ${route.route.path}?${given}: a ${rel} link`);
          const params = new URLSearchParams(href.split('?')[1] ?? '');
          for (const name of params.keys())
            assert.ok(names.includes(name), `${rel} of GET ${route.route.path} carries "${name}"`);
          const followed = await call('GET', `${app.base}${href}`, { token: admin });
          assert.equal(followed.status, 200, `${rel} ${href}: ${followed.text}`);
        }
        const header = page.headers.get('link') ?? '';
        for (const [, href] of header.matchAll(/<([^>]*)>/g)) {
          const params = new URLSearchParams(href.split('?')[1] ?? '');
          for (const name of params.keys()) assert.ok(names.includes(name), `Link of GET ${route.route.path}: ${href}`);
        }
      }
    }
  });

  it('a listing whose filters give more than one page offers next, and next keeps the filters', async () => {
    const page = await call('GET', `${app.api}/deliveries?status=pending&owner=acme&per_page=2`, { token: admin });
    assert.equal(page.status, 200, page.text);
    const next = page.body._links.next.href as string;
    assert.equal(next, '/api/v1/deliveries?status=pending&owner=acme&page=2&per_page=2');
    const followed = await call('GET', `${app.base}${next}`, { token: admin });
    assert.equal(followed.status, 200);
    assert.equal(followed.body.total, page.body.total);
  });

  it('an unknown parameter is refused after the credentials are checked: 401 first without a token', async () => {
    const anonymous = await call('GET', `${app.api}/deliveries?stauts=dead`);
    assert.equal(anonymous.status, 401);
    const viewer = await app.token('viewer', 'acme');
    const refused = await call('GET', `${app.api}/deliveries?status=dead&stauts=dead&owner[]=acme`, { token: viewer });
    assertRefused(
      refused,
      'stauts',
      ['status', 'endpoint', 'event', 'type', 'owner', 'without_owner', 'since', 'until', 'page', 'per_page'],
      'the first unknown in the order given',
    );
    assert.match(refused.body.detail, /owner\[\]/, 'the message names the others too');
  });
});

/**
 * Hostile input, at random, where the REST fuzz (fuzz.test.ts) does not reach: GraphQL queries
 * and mutations with hostile variables, the account paths (sign-in, sign-up, password reset and
 * change, a user's invitation from the console) with hostile JSON and form bodies, the HAL
 * routes of declared models, query strings with repeated and bracketed keys, odd request headers
 * (`Idempotency-Key`, `If-Match`, `Prefer`, `Accept` with its API version, `X-Request-Id`), and
 * bodies of another media type, charset or size than the service reads, or with bytes that are
 * not UTF-8. No answer is a 5xx; every refusal over HTTP is problem+json with an `APP_*` code,
 * and every GraphQL error carries an `APP_*` code other than `APP_GRAPHQL_INTERNAL` (an
 * unexpected failure in a resolver).
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { createUser } from '../../../shared/accounts/users.ts';
import { OPERATOR } from '../../../shared/access/actor.ts';
import { Browser, PASSWORD } from '../accounts/helpers.ts';
import { startApp, type TestApp } from '../fixtures/app.ts';
import { call, closeAll, startApi, type ApiHarness } from '../webhooks-api/helpers.ts';
import { encodedPairs, fieldsOf, fuzzSettings, hugeNumber, nasty, value } from './arbitraries.ts';

const SETTINGS = fuzzSettings(20261129, 25);

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request as given: any method, latin-1 header values, body bytes as they are. */
function raw(base: string, method: string, path: string, headers: Record<string, string>, body?: Buffer | string) {
  return new Promise<Raw>((resolve, reject) => {
    const url = new URL(base);
    const req = httpRequest({ host: url.hostname, port: url.port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() }),
      );
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

const what = (method: string, path: string, body: unknown) =>
  `${method} ${path.slice(0, 200)} ${String(typeof body === 'string' ? body : JSON.stringify(body))?.slice(0, 300)}`;

/**
 * Below 500; a refusal is problem+json with an APP_* code. A page object (the console's and the
 * account pages' JSON) may carry its refusal in `errors` instead: each has an APP_* code when the
 * page is a 4xx, and none is an unexpected failure shown on the page.
 */
function assertRefusalShape(answer: Raw, request: string): void {
  assert.ok(answer.status < 500, `${request}: ${answer.status} ${answer.text.slice(0, 300)}`);
  if (/^application\/json/.test(String(answer.headers['content-type']))) {
    const body = JSON.parse(answer.text);
    if (typeof body?.page === 'string') {
      for (const error of body.errors ?? []) {
        // a 200 page may carry a notice without a code ("nothing was sent")
        if (answer.status >= 400)
          assert.match(error.code ?? '', /^APP_[A-Z_]+$/, `${request}: ${JSON.stringify(error).slice(0, 300)}`);
        assert.notEqual(error.code, 'APP_GRAPHQL_INTERNAL', `${request}: ${JSON.stringify(error).slice(0, 300)}`);
      }
      return;
    }
  }
  if (answer.status < 400) return;
  assert.match(String(answer.headers['content-type']), /application\/problem\+json/, `${request}: ${answer.text}`);
  assert.match(JSON.parse(answer.text).code ?? '', /^APP_[A-Z_]+$/, `${request}: ${answer.text.slice(0, 300)}`);
}

/** Below 500; a problem+json answer has an APP_* code; every GraphQL error an APP_* code, not the internal one. */
function assertGraphqlShape(answer: Raw, request: string): void {
  assert.ok(answer.status < 500, `${request}: ${answer.status} ${answer.text.slice(0, 300)}`);
  const body = JSON.parse(answer.text);
  if (/problem\+json/.test(String(answer.headers['content-type']))) {
    assert.match(body.code ?? '', /^APP_[A-Z_]+$/, `${request}: ${answer.text.slice(0, 300)}`);
    return;
  }
  for (const error of body.errors ?? []) {
    const code = error.extensions?.code ?? '';
    assert.match(code, /^APP_[A-Z_]+$/, `${request}: ${JSON.stringify(error).slice(0, 300)}`);
    assert.notEqual(code, 'APP_GRAPHQL_INTERNAL', `${request}: ${JSON.stringify(error).slice(0, 300)}`);
  }
}

const property = <T>(arbitrary: fc.Arbitrary<T>, run: (input: T) => Promise<void>) =>
  fc.assert(fc.asyncProperty(arbitrary, run), SETTINGS);

/** GraphQL operations, each with the variables it declares. */
const OPERATIONS: ReadonlyArray<[string, readonly string[]]> = [
  ['query($id: ID!) { webhookEndpoint(id: $id) { externalId } }', ['id']],
  ['query($id: ID!) { webhookEvent(id: $id) { externalId } }', ['id']],
  ['query($id: ID!) { webhookDelivery(id: $id) { externalId } }', ['id']],
  [
    'query($filter: WebhookEndpointFilter, $page: Int, $perPage: Int) { webhookEndpoints(filter: $filter, page: $page, perPage: $perPage) { total } }',
    ['filter', 'page', 'perPage'],
  ],
  [
    'query($filter: WebhookEventFilter, $page: Int, $perPage: Int) { webhookEvents(filter: $filter, page: $page, perPage: $perPage) { total } }',
    ['filter', 'page', 'perPage'],
  ],
  [
    'query($filter: WebhookDeliveryFilter, $page: Int, $perPage: Int) { webhookDeliveries(filter: $filter, page: $page, perPage: $perPage) { total } }',
    ['filter', 'page', 'perPage'],
  ],
  [
    'query($filter: JSON, $event: JSON, $eventId: ID) { testWebhookFilter(filter: $filter, event: $event, eventId: $eventId) { matches } }',
    ['filter', 'event', 'eventId'],
  ],
  [
    'query($owner: String, $withoutOwner: Boolean) { webhookQueue(owner: $owner, withoutOwner: $withoutOwner) { dead } }',
    ['owner', 'withoutOwner'],
  ],
  [
    'query($window: WebhookSeriesWindow, $owner: String, $withoutOwner: Boolean) { webhookDeliverySeries(window: $window, owner: $owner, withoutOwner: $withoutOwner) { window } }',
    ['window', 'owner', 'withoutOwner'],
  ],
  [
    'query($includeDeprecated: Boolean, $page: Int, $perPage: Int) { eventTypes(includeDeprecated: $includeDeprecated, page: $page, perPage: $perPage) { total } }',
    ['includeDeprecated', 'page', 'perPage'],
  ],
  ['query($name: String!) { eventType(name: $name) { name } }', ['name']],
  ['mutation($input: RegisterWebhookEndpointInput!) { registerWebhookEndpoint(input: $input) { secret } }', ['input']],
  [
    'mutation($id: ID!, $input: UpdateWebhookEndpointInput!) { updateWebhookEndpoint(id: $id, input: $input) { externalId } }',
    ['id', 'input'],
  ],
  ['mutation($id: ID!, $grace: Float) { rotateWebhookSecret(id: $id, grace: $grace) { secret } }', ['id', 'grace']],
  [
    'mutation($id: ID!, $type: String, $data: JSON) { sendTestWebhookEvent(id: $id, type: $type, data: $data) { externalId } }',
    ['id', 'type', 'data'],
  ],
  ['mutation($input: EmitWebhookEventInput!) { emitWebhookEvent(input: $input) { duplicate } }', ['input']],
  ['mutation($id: ID!) { retryWebhookDelivery(id: $id) { externalId } }', ['id']],
  ['mutation($id: ID!) { resendWebhookDelivery(id: $id) { externalId } }', ['id']],
  [
    'mutation($id: ID!, $since: DateTime!, $until: DateTime) { recoverWebhookDeliveries(id: $id, since: $since, until: $until) { recovered } }',
    ['id', 'since', 'until'],
  ],
  ['mutation($input: EventTypeInput!) { createEventType(input: $input) { name } }', ['input']],
  [
    'mutation($name: String!, $input: EventTypePatch!) { updateEventType(name: $name, input: $input) { name } }',
    ['name', 'input'],
  ],
];

/** A variable's value: anything, or an input object of the fields the API's inputs have. */
const variable = fc.oneof(
  value,
  fieldsOf(['url', 'events', 'filter', 'owner', 'description', 'headers', 'signing', 'rateLimit', 'ordering'], {
    url: fc.oneof(nasty, fc.constant('https://127.0.0.1/fuzz-gql')),
    events: fc.oneof(value, fc.array(nasty, { maxLength: 3 })),
    rateLimit: fc.oneof(hugeNumber, value),
  }),
  fieldsOf(['type', 'data', 'owner', 'eventId'], { type: fc.oneof(nasty, fc.constant('order.created')) }),
  fieldsOf(['name', 'description', 'schema', 'examples', 'deprecated']),
  fieldsOf(['status', 'endpoint', 'event', 'type', 'owner', 'withoutOwner', 'since', 'until', 'enabled', 'events']),
);

describe('fuzzed requests beyond the REST routes of the webhook API', () => {
  after(closeAll); // the servers stop before the database is dropped
  let app: ApiHarness;
  let token: string;
  let member: string;
  let endpointId: string;
  let admin: Browser;
  let adminCsrf: string;

  before(async () => {
    app = await startApi({
      rateLimit: { max: 1_000_000, auth: { max: 1_000_000 } },
      auth: { lockout: false, signup: true },
      bodyLimit: '64kb',
    });
    token = await app.token('admin');
    member = await app.token('member', 'acme');
    endpointId = (
      await call('POST', `${app.api}/webhooks`, { token, body: { url: 'https://127.0.0.1/fuzz', events: ['*'] } })
    ).body.externalId;
    const user = await createUser(app.web.accounts, OPERATOR, {
      email: 'fuzz-admin@example.com',
      role: 'admin',
      owner: null,
      password: PASSWORD,
    });
    admin = new Browser(app.base);
    adminCsrf = await admin.signIn(user.email);
  });

  /** What a browser's script sends with an unsafe request: its cookies, its CSRF token, its origin. */
  const signedInHeaders = (browser = admin, csrf = adminCsrf) => ({
    Accept: 'application/json',
    Origin: app.base,
    'X-CSRF-Token': csrf,
    Cookie: browser.cookieHeader(),
  });

  const gql = (body: unknown, as: string, headers: Record<string, string> = {}) =>
    raw(
      app.base,
      'POST',
      '/_app/gql',
      {
        Authorization: `Bearer ${as}`,
        'Content-Type': 'application/json',
        Accept: 'application/graphql-response+json',
        ...headers,
      },
      JSON.stringify(body),
    );

  for (const role of ['admin', 'member'] as const) {
    it(`GraphQL queries and mutations with hostile variables, as ${role}: no 5xx, no APP_GRAPHQL_INTERNAL`, async () => {
      const as = role === 'admin' ? token : member;
      await property(
        fc.tuple(
          fc.constantFrom(...OPERATIONS),
          fc.array(variable, { minLength: 3, maxLength: 3 }),
          fc.constantFrom(endpointId, 'ep_nothing'),
          fc.boolean(),
        ),
        async ([[query, names], values, id, ownId]) => {
          const variables = Object.fromEntries(names.map((name, i) => [name, values[i]]));
          if (ownId && 'id' in variables) variables.id = id;
          const body = { query, variables };
          assertGraphqlShape(await gql(body, as), what('POST', '/_app/gql', body));
        },
      );
    });
  }

  it('GraphQL requests whose parameters are of the wrong JSON type, by POST and by GET: no 5xx', async () => {
    const parameter = fc.oneof(value, fc.constant('{ webhookEndpoints { total } }'));
    await property(
      fc.record({ query: parameter, variables: value, operationName: value, extensions: value }, { requiredKeys: [] }),
      async (body) => {
        assertGraphqlShape(await gql(body, token), what('POST', '/_app/gql', body));
        const search = new URLSearchParams(
          Object.entries(body).map(([name, given]): [string, string] => [
            name,
            typeof given === 'string' ? given : (JSON.stringify(given) ?? ''),
          ]),
        );
        const path = `/_app/gql?${search}`.slice(0, 3_000);
        const answer = await raw(app.base, 'GET', path, {
          Authorization: `Bearer ${token}`,
          Accept: 'application/json',
        });
        assertGraphqlShape(answer, what('GET', path, undefined));
      },
    );
  });

  it('the account paths with hostile JSON and form bodies: no 5xx, refusals as problem+json', async () => {
    const fields = ['email', 'password', 'name', 'token', 'next', 'currentPassword', 'newPassword', '_csrf'];
    const paths = [
      '/login',
      '/register',
      '/signup',
      '/confirm-signup',
      '/forgot-password',
      '/reset-password',
      '/password',
      '/logout',
    ];
    const form = encodedPairs(
      fc.oneof(
        fc.constantFrom(...fields),
        fc.constantFrom('email[]', 'email[toString]', 'password[0]', 'token[a][b]', '__proto__[x]'),
        nasty,
      ),
      nasty,
      6,
    );
    await property(
      fc.tuple(fc.constantFrom(...paths), fc.oneof(fieldsOf(fields), form), fc.boolean()),
      async ([path, body, signedIn]) => {
        if (signedIn && path === '/logout') return; // it would end the admin's session
        // an anonymous browser with the token of its own form, or the signed-in admin with its session's
        const browser = signedIn ? admin : new Browser(app.base);
        const csrf = signedIn ? adminCsrf : (await browser.request('GET', '/register')).body.csrfToken;
        const headers = {
          ...signedInHeaders(browser, csrf),
          'Content-Type': typeof body === 'string' ? 'application/x-www-form-urlencoded' : 'application/json',
        };
        const text = typeof body === 'string' ? body : JSON.stringify(body);
        assertRefusalShape(await raw(app.base, 'POST', path, headers, text), what('POST', path, text));
      },
    );
  });

  it('console forms (an invitation, a token, a portal link, an endpoint, an emit, an event type) with hostile fields: no 5xx', async () => {
    const forms = [
      '/users',
      '/tokens',
      '/tenants/portal-link',
      '/endpoints',
      `/endpoints/${endpointId}`,
      `/endpoints/${endpointId}/filter-test`,
      '/events',
      '/events/new',
      '/event-types',
      '/event-types/order.created',
      '/dead-letters/replay',
    ];
    const fields = fieldsOf(
      [
        'email',
        'name',
        'role',
        'owner',
        'expires',
        'url',
        'events',
        'description',
        'headers',
        'filter',
        'signing',
        'ordering',
        'rateLimit',
        'type',
        'data',
        'schema',
        'examples',
        'deprecated',
        'event',
        'eventId',
        'endpoint',
        'since',
        'until',
        '_formKey',
      ],
      { name: fc.oneof(value, fc.constant('order.created')) },
    );
    await property(fc.tuple(fc.constantFrom(...forms), fields), async ([path, body]) => {
      const text = JSON.stringify(body);
      const answer = await raw(
        app.base,
        'POST',
        path,
        { ...signedInHeaders(), 'Content-Type': 'application/json' },
        text,
      );
      assertRefusalShape(answer, what('POST', path, text));
    });
  });

  it('query strings with repeated keys, bracket syntax and long values, on every face: no 5xx', async () => {
    // the names the routes read, the same with brackets, names of what every object inherits
    const names = ['page', 'per_page', 'status', 'owner', 'events', 'since', 'next', 'token', 'query', 'window'];
    const name = fc.oneof(
      fc.constantFrom(...names),
      fc.constantFrom(...names).map((known) => `${known}[]`),
      fc.constantFrom('a[b]', 'a[b][c][d][e][f][g]', '__proto__[x]', 'constructor[prototype]', 'status[0]'),
      nasty,
    );
    const query = encodedPairs(
      name,
      fc.oneof(nasty, fc.constantFrom('1', '2', '-1', '9'.repeat(400), 'true', 'dead')),
      8,
    );
    const paths = [
      '/api/v1/webhooks',
      `/api/v1/webhooks/${endpointId}`,
      '/api/v1/events',
      '/api/v1/deliveries',
      '/api/v1/event-types',
      '/api/v1/tokens',
      '/_app/gql',
      '/login',
      '/reset-password',
      '/users',
      '/',
      '/dead-letters',
      '/find',
      `/endpoints/${endpointId}`,
      '/event-types',
      '/tenants',
      '/portal',
    ];
    await property(fc.tuple(fc.constantFrom(...paths), query), async ([path, search]) => {
      const target = `${path}?${search}`;
      const headers = { Accept: 'application/json', Authorization: `Bearer ${token}` };
      const answer = await raw(app.base, 'GET', target, headers);
      if (path === '/_app/gql') return assertGraphqlShape(answer, what('GET', target, undefined));
      assertRefusalShape(answer, what('GET', target, undefined));
      const session = { Accept: 'application/json', Cookie: admin.cookieHeader() };
      if (!path.startsWith('/api') && path !== '/_app/gql')
        assertRefusalShape(await raw(app.base, 'GET', target, session), what('GET', target, 'signed in'));
    });
  });

  it('odd Idempotency-Key, If-Match, If-None-Match, Prefer, Accept and X-Request-Id headers: no 5xx', async () => {
    const latin1 = fc
      .oneof(
        nasty,
        fc.constantFrom(
          '*',
          '"a"',
          'W/"x"',
          '"\\"',
          '""',
          'application/vnd.app.v1+json;q=0',
          'application/vnd.app.v99999999999999999999+json',
          'application/vnd.app.v1+json;q=NaN, */*;q=1e400',
          'respond-async, wait=100000000000000000000',
          'return=minimal',
          '*/*;q=0',
          'text/html;q=0.5, application/hal+json',
          '\t',
        ),
        fc.string({ minLength: 5000, maxLength: 9000 }),
      )
      // what an HTTP client can put in a header: latin-1, no line breaks nor NUL
      .map((text) => text.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?'));
    const header = fc.constantFrom('Idempotency-Key', 'If-Match', 'If-None-Match', 'Prefer', 'Accept', 'X-Request-Id');
    const requests: ReadonlyArray<[string, string, unknown]> = [
      ['GET', '/api/v1/webhooks', undefined],
      ['POST', '/api/v1/events', { type: 'order.created', data: {} }],
      ['PATCH', `/api/v1/webhooks/${endpointId}`, { description: 'patched' }],
      ['POST', '/_app/gql', { query: '{ webhookEndpoints { total } }' }],
      ['DELETE', '/api/v1/webhooks/ep_nothing', undefined],
    ];
    await property(
      fc.tuple(fc.constantFrom(...requests), fc.dictionary(header, latin1, { minKeys: 1, maxKeys: 3 })),
      async ([[method, path, body], headers]) => {
        const sent = {
          Authorization: `Bearer ${token}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
          ...headers,
        };
        const answer = await raw(app.base, method, path, sent, body === undefined ? undefined : JSON.stringify(body));
        const request = what(method, path, headers);
        if (answer.status === 304) return; // If-None-Match matched: no body
        if (path === '/_app/gql') assertGraphqlShape(answer, request);
        else assertRefusalShape(answer, request);
      },
    );
  });

  it('bodies of another media type or charset, oversized, or with bytes that are not UTF-8: no 5xx', async () => {
    const contentType = fc.oneof(
      fc.constantFrom(
        'application/json',
        'application/json; charset=utf-16',
        'application/json; charset="UTF-8"',
        'application/json; charset=utf-8; charset=latin1',
        'application/json;;;',
        'application/json; charset',
        'application/x-www-form-urlencoded',
        'application/x-www-form-urlencoded; charset=iso-8859-1',
        'text/plain',
        'multipart/form-data; boundary=x',
        'application/hal+json',
        'application/vnd.app.v1+json',
        'application/csp-report',
        'application/merge-patch+json',
        '*/*',
        'application/',
        ';',
      ),
      nasty.map((text) => text.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?')),
    );
    const bytes = fc.oneof(
      value.map((given) => Buffer.from(JSON.stringify(given) ?? 'null')),
      fc.uint8Array({ maxLength: 200 }).map((array) => Buffer.from(array)),
      fc.constantFrom(
        Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), // {"a":"\xff\xfe"}
        Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]), // a byte order mark, then {}
        Buffer.from('email=%FF%FE&password=%ED%A0%80'),
        Buffer.from('a[b][c][d][e][f][g][h][i]=1&a[0]=2&a[999999]=3'),
        Buffer.from(`{"a":"${'x'.repeat(70_000)}"}`), // past the 64 kB bodyLimit
        Buffer.from(`${'['.repeat(5_000)}${']'.repeat(5_000)}`),
      ),
    );
    const targets: ReadonlyArray<[string, string]> = [
      ['POST', '/api/v1/webhooks'],
      ['PATCH', `/api/v1/webhooks/${endpointId}`],
      ['POST', '/api/v1/events'],
      ['POST', '/_app/gql'],
      ['POST', '/login'],
      ['POST', '/forgot-password'],
      ['PUT', '/api/v1/webhooks'],
    ];
    await property(fc.tuple(fc.constantFrom(...targets), contentType, bytes), async ([[method, path], type, body]) => {
      const answer = await raw(
        app.base,
        method,
        path,
        { Authorization: `Bearer ${token}`, Accept: 'application/json', 'Content-Type': type },
        body,
      );
      const request = `${method} ${path} ${type.slice(0, 100)} ${body.subarray(0, 200).toString('latin1')}`;
      if (path === '/_app/gql') assertGraphqlShape(answer, request);
      else assertRefusalShape(answer, request);
    });
  });

  it('logs no stack trace for any of it', () => {
    const stacks = app.logs.filter((line) => /"stack"/.test(line) && /"level":(50|60)/.test(line));
    assert.deepEqual(
      stacks.map((line) => JSON.parse(line).msg),
      [],
    );
  });
});

describe("fuzzed requests over a declared model's HAL routes", () => {
  let models: TestApp;
  let postId: string;
  const admin = { 'X-Test-Principal': 'u1;admin,editor', Accept: 'application/hal+json' };

  before(async () => {
    models = await startApp({ flags: { rateLimit: { max: 1_000_000 } } });
    const created = await raw(
      models.base,
      'POST',
      '/api/v1/posts',
      { ...admin, 'Content-Type': 'application/json' },
      JSON.stringify({ title: 'fuzzed' }),
    );
    postId = JSON.parse(created.text).externalId;
  });

  const post = fieldsOf(['title', 'published', 'author', 'reviewer', 'views', 'rating', 'publishedAt', 'meta'], {
    views: fc.oneof(hugeNumber, value),
    rating: fc.oneof(hugeNumber, value),
    publishedAt: fc.oneof(fc.constantFrom('0000-01-01T00:00:00Z', '275760-09-13T00:00:00Z', '2026-13-45'), value),
  });

  it('create and update with hostile fields and ids, show and destroy hostile ids: no 5xx', async () => {
    await property(fc.tuple(post, nasty, fc.boolean()), async ([body, id, own]) => {
      const text = JSON.stringify(body);
      const encoded = own ? postId : encodeURIComponent(id.toWellFormed()).slice(0, 600) || 'x';
      const headers = { ...admin, 'Content-Type': 'application/json' };
      for (const [method, path, sent] of [
        ['POST', '/api/v1/posts', text],
        ['PATCH', `/api/v1/posts/${encoded}`, text],
        ['PUT', `/api/v1/authors/${encoded}`, JSON.stringify({ name: body.title, email: body.meta })],
        ['GET', `/api/v1/posts/${encoded}`, undefined],
        ['DELETE', `/api/v1/posts/${own ? 'px_nothing' : encoded}`, undefined],
      ] as const) {
        assertRefusalShape(await raw(models.base, method, path, headers, sent), what(method, path, sent));
      }
    });
  });

  it('listings with hostile query strings: no 5xx', async () => {
    const query = encodedPairs(
      fc.oneof(fc.constantFrom('page', 'per_page', 'page[]', 'per_page[0]', 'title'), nasty),
      fc.oneof(nasty, fc.constantFrom('9'.repeat(20), '1e3', '0x10', '-0', '2147483648')),
      5,
    );
    await property(query, async (search) => {
      for (const path of ['/api/v1/posts', '/api/v1/authors'])
        assertRefusalShape(await raw(models.base, 'GET', `${path}?${search}`, admin), what('GET', path, search));
    });
  });
});

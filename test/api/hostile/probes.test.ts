/**
 * Hostile input answers below 500, always as problem+json
 * with a stable code, and logs no stack trace. The probes are data: NUL and other unstorable
 * text in every id, text field and filter, bad encodings, odd methods, long query strings,
 * invalid bearers, malformed PATCH bodies, contradictory GraphQL filters.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { deflateSync, gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { call, closeAll, startApi, type ApiHarness } from '../webhooks-api/helpers.ts';

const NUL = '\u0000';

interface Probe {
  name: string;
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** The status expected, when one is (else any 4xx). */
  status?: number;
  /** The `code` expected. */
  code?: string;
}

/** Sends a raw request (bodies as given, any method token). */
function raw(base: string, method: string, path: string, headers: Record<string, string>, body?: Buffer | string) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string }>(
    (resolve, reject) => {
      const url = new URL(path, base);
      const req = httpRequest(
        { host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers },
        (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
        },
      );
      req.on('error', reject);
      if (body !== undefined) req.write(body);
      req.end();
    },
  );
}

describe('hostile input', () => {
  after(closeAll); // the worker and servers stop before the database is dropped
  let app: ApiHarness;
  let admin: string;
  let viewer: string;
  let endpointId: string;

  before(async () => {
    app = await startApi({ rateLimit: { max: 100_000 } });
    admin = await app.token('admin');
    viewer = await app.token('viewer', 'acme');
    const created = await call('POST', `${app.api}/webhooks`, {
      token: admin,
      body: { url: 'https://127.0.0.1/hostile', events: ['*'] },
    });
    endpointId = created.body.externalId;
  });

  const problem = (
    answer: { status: number; headers: Headers | Record<string, unknown>; body?: { code?: string } },
    what: string,
  ) => {
    assert.ok(answer.status >= 400 && answer.status < 500, `${what}: ${answer.status}`);
    const type =
      answer.headers instanceof Headers ? answer.headers.get('content-type') : String(answer.headers['content-type']);
    assert.match(type ?? '', /application\/problem\+json/, `${what}: ${type}`);
    assert.match(answer.body?.code ?? '', /^APP_[A-Z_]+$/, `${what}: code ${answer.body?.code}`);
  };

  it('NUL in every id, text field and filter: 4xx problem+json with a code, never 500', async () => {
    const probes: Probe[] = [
      {
        name: 'webhook id',
        method: 'GET',
        path: `/api/v1/webhooks/${encodeURIComponent(NUL)}`,
        status: 404,
        code: 'APP_WEBHOOK_NOT_FOUND',
      },
      {
        name: 'webhook id with text',
        method: 'GET',
        path: `/api/v1/webhooks/ep_${encodeURIComponent(NUL)}x`,
        status: 404,
      },
      {
        name: 'event id',
        method: 'GET',
        path: `/api/v1/events/${encodeURIComponent(NUL)}`,
        status: 404,
        code: 'APP_WEBHOOK_EVENT_NOT_FOUND',
      },
      {
        name: 'delivery id',
        method: 'GET',
        path: `/api/v1/deliveries/${encodeURIComponent(NUL)}`,
        status: 404,
        code: 'APP_WEBHOOK_DELIVERY_NOT_FOUND',
      },
      { name: 'retry id', method: 'POST', path: `/api/v1/deliveries/${encodeURIComponent(NUL)}/retry`, status: 404 },
      { name: 'rotate id', method: 'POST', path: `/api/v1/webhooks/${encodeURIComponent(NUL)}/rotate`, status: 404 },
      {
        name: 'endpoint deliveries id',
        method: 'GET',
        path: `/api/v1/webhooks/${encodeURIComponent(NUL)}/deliveries`,
        status: 404,
      },
      {
        name: 'description on create',
        method: 'POST',
        path: '/api/v1/webhooks',
        body: { url: 'https://127.0.0.1/x', events: ['*'], description: `a${NUL}b` },
        status: 422,
      },
      {
        name: 'owner on create',
        method: 'POST',
        path: '/api/v1/webhooks',
        body: { url: 'https://127.0.0.1/x', events: ['*'], owner: `a${NUL}b` },
        status: 422,
      },
      {
        name: 'description on update',
        method: 'PATCH',
        path: '/api/v1/webhooks/:id',
        body: { description: `a${NUL}b` },
        status: 422,
      },
      {
        name: 'disabledReason on update',
        method: 'PATCH',
        path: '/api/v1/webhooks/:id',
        body: { enabled: false, disabledReason: `a${NUL}b` },
        status: 422,
      },
      {
        name: 'header value on update',
        method: 'PATCH',
        path: '/api/v1/webhooks/:id',
        body: { headers: { 'X-A': `a${NUL}b` } },
        status: 422,
      },
      {
        name: 'endpoint filter',
        method: 'GET',
        path: `/api/v1/deliveries?endpoint=${encodeURIComponent(NUL)}`,
        status: 422,
        code: 'APP_WEBHOOK_LIST_INVALID',
      },
      {
        name: 'event filter',
        method: 'GET',
        path: `/api/v1/deliveries?event=${encodeURIComponent(NUL)}`,
        status: 422,
        code: 'APP_WEBHOOK_LIST_INVALID',
      },
      { name: 'owner filter', method: 'GET', path: `/api/v1/webhooks?owner=${encodeURIComponent(NUL)}`, status: 422 },
      {
        name: 'event payload',
        method: 'POST',
        path: '/api/v1/events',
        body: { type: 'order.created', data: { note: `a${NUL}b` } },
      },
      {
        name: 'event type',
        method: 'POST',
        path: '/api/v1/events',
        body: { type: `order${NUL}`, data: {} },
        status: 422,
      },
      {
        name: 'recover since',
        method: 'POST',
        path: '/api/v1/webhooks/:id/recover',
        body: { since: `2026${NUL}` },
        status: 422,
      },
    ];
    for (const probe of probes) {
      const path = probe.path.replace(':id', endpointId);
      const answer = await call(probe.method, `${app.base}${path}`, {
        token: admin,
        ...(probe.body === undefined ? {} : { body: probe.body }),
      });
      if (probe.name === 'event payload' && answer.status === 202) continue; // JSON may carry \u0000 in jsonb? then it must be accepted whole
      problem(answer, probe.name);
      if (probe.status) assert.equal(answer.status, probe.status, `${probe.name}: ${answer.text}`);
      if (probe.code) assert.equal(answer.body.code, probe.code, probe.name);
    }
  });

  it('NUL in GraphQL arguments: a coded error, not APP_GRAPHQL_INTERNAL', async () => {
    const queries = [
      `{ webhookEndpoint(id: "\\u0000") { id } }`,
      `{ deliveries(filter: { endpoint: "\\u0000" }) { total } }`,
      `{ events(filter: { type: "a\\u0000" }) { total } }`,
    ];
    for (const query of queries) {
      const answer = await call('POST', `${app.base}/_app/gql`, {
        token: admin,
        body: { query },
        headers: { Accept: 'application/json' },
      });
      assert.ok(answer.status < 500, `${query}: ${answer.status}`);
      for (const error of answer.body.errors ?? []) {
        assert.notEqual(error.extensions?.code, 'APP_GRAPHQL_INTERNAL', `${query}: ${JSON.stringify(error)}`);
      }
    }
  });

  it('a bad compressed body is 400 problem+json; an unknown encoding 415 that says so', async () => {
    for (const encoding of ['deflate', 'br', 'gzip']) {
      const answer = await raw(
        app.base,
        'POST',
        '/api/v1/events',
        {
          Authorization: `Bearer ${admin}`,
          'Content-Type': 'application/json',
          'Content-Encoding': encoding,
          Accept: 'application/json',
        },
        Buffer.from('this is not compressed at all'),
      );
      assert.equal(answer.status, 400, `${encoding}: ${answer.text}`);
      assert.match(String(answer.headers['content-type']), /problem\+json/);
      assert.match(JSON.parse(answer.text).code, /^APP_/);
    }
    const good = await raw(
      app.base,
      'POST',
      '/api/v1/events',
      {
        Authorization: `Bearer ${admin}`,
        'Content-Type': 'application/json',
        'Content-Encoding': 'deflate',
        Accept: 'application/json',
      },
      deflateSync(JSON.stringify({ type: 'order.created', data: { ok: true } })),
    );
    assert.ok(good.status < 300, `a real deflate body is read: ${good.status} ${good.text}`);
    const unknown = await raw(
      app.base,
      'POST',
      '/api/v1/events',
      {
        Authorization: `Bearer ${admin}`,
        'Content-Type': 'application/json',
        'Content-Encoding': 'snappy',
      },
      '{}',
    );
    assert.equal(unknown.status, 415);
    const body = JSON.parse(unknown.text);
    assert.match(body.code, /^APP_/);
    assert.doesNotMatch(body.detail ?? '', /Internal Server Error/);
    assert.match(body.detail ?? '', /snappy/);
  });

  it('unknown methods answer 405 or 501 as problem+json, never plain text', async () => {
    for (const method of ['TRACE', 'PROPFIND', 'MKCOL', 'FOO']) {
      for (const path of ['/api/v1/webhooks', `/api/v1/webhooks/${endpointId}`, '/nowhere']) {
        const answer = await raw(app.base, method, path, { Authorization: `Bearer ${admin}` });
        assert.ok([405, 501, 404].includes(answer.status), `${method} ${path}: ${answer.status}`);
        assert.match(
          String(answer.headers['content-type']),
          /application\/problem\+json/,
          `${method} ${path}: ${answer.headers['content-type']} ${answer.text}`,
        );
        assert.match(JSON.parse(answer.text).code, /^APP_/);
      }
    }
  });

  it('a long query string is refused with 414 before it can grow a header; an unknown parameter is refused, never carried into links', async () => {
    const long = await call('GET', `${app.api}/deliveries?junk=${'x'.repeat(12_000)}`, { token: admin });
    assert.equal(long.status, 414);
    problem({ ...long, status: 499 }, '414 body'); // the body shape
    assert.equal(long.body.code, 'APP_QUERY_TOO_LONG');
    const padded = await call('GET', `${app.api}/deliveries?per_page=1&junk=${'y'.repeat(500)}&status=dead`, {
      token: admin,
    });
    assert.equal(padded.status, 422);
    assert.equal(padded.body.code, 'APP_QUERY_PARAMETER_UNKNOWN');
    assert.equal(padded.headers.get('link'), null);
    const page = await call('GET', `${app.api}/deliveries?per_page=1&status=dead`, { token: admin });
    assert.equal(page.status, 200);
    const link = page.headers.get('link') ?? '';
    assert.ok(link.length < 2_000, `Link is ${link.length} characters`);
  });

  it('made-up bearer tokens count against the ip: the global limit refuses them with 429', async () => {
    const limited = await startApi({ rateLimit: { max: 5 } });
    const statuses: number[] = [];
    for (let i = 0; i < 8; i += 1) {
      const answer = await call('GET', `${limited.api}/webhooks`, {
        token: `app_tok_${'A'.repeat(43 - String(i).length)}${i}`,
      });
      statuses.push(answer.status);
    }
    assert.ok(statuses.includes(401), statuses.join(','));
    assert.equal(statuses.at(-1), 429, statuses.join(','));
  });

  it('PATCH {} and PATCH with unknown fields: 422 APP_WEBHOOK_PATCH_INVALID; GraphQL owner with withoutOwner: the list error REST gives', async () => {
    for (const body of [{}, { colour: 'red' }, { url: 'https://127.0.0.1/ok', colour: 'red' }]) {
      const answer = await call('PATCH', `${app.api}/webhooks/${endpointId}`, { token: admin, body });
      assert.equal(answer.status, 422, JSON.stringify(body));
      assert.equal(answer.body.code, 'APP_WEBHOOK_PATCH_INVALID');
    }
    const rest = await call('GET', `${app.api}/webhooks?owner=acme&without_owner=true`, { token: admin });
    assert.equal(rest.status, 422);
    const gql = await call('POST', `${app.base}/_app/gql`, {
      token: admin,
      headers: { Accept: 'application/json' },
      body: { query: '{ webhookEndpoints(filter: { owner: "acme", withoutOwner: true }) { total } }' },
    });
    assert.equal(gql.body.errors?.[0]?.extensions?.code, rest.body.code, JSON.stringify(gql.body));
  });

  it('values nested thousands deep in any body field: 422 problem+json with its data bounded, never 500', async () => {
    // written as text: JSON.stringify itself overflows the stack on such a value
    const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;
    const bodies: Array<[string, string, string]> = [
      ['POST', '/api/v1/webhooks', `{"url":"https://127.0.0.1/x","events":${deep}}`],
      ['POST', '/api/v1/webhooks', `{"url":${deep},"events":["*"]}`],
      ['POST', '/api/v1/webhooks', `{"url":"https://127.0.0.1/x","events":["*"],"owner":${deep}}`],
      ['POST', `/api/v1/webhooks/${endpointId}/rotate`, `{"grace":${deep}}`],
      ['POST', `/api/v1/webhooks/${endpointId}/recover`, `{"since":${deep}}`],
      ['POST', '/api/v1/events', `{"type":${deep},"data":{}}`],
      ['POST', '/api/v1/events', `{"type":"order.created","data":${deep}}`],
    ];
    const headers = (token: string) => ({
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json',
    });
    for (const [method, path, body] of bodies) {
      const answer = await raw(app.base, method, path, headers(admin), body);
      const what = `${method} ${path} ${body.slice(0, 40)}`;
      assert.ok(answer.status >= 400 && answer.status < 500, `${what}: ${answer.status} ${answer.text.slice(0, 200)}`);
      assert.match(String(answer.headers['content-type']), /problem\+json/, what);
      assert.match(JSON.parse(answer.text).code, /^APP_[A-Z_]+$/, what);
      assert.ok(
        answer.text.length < 20_000,
        `${what}: the answer echoes a bounded value (${answer.text.length} characters)`,
      );
    }
    // a member naming a deeply nested owner: an owner of the wrong type, as for an admin, not echoed
    const member = await app.token('member', 'acme');
    const refused = await raw(
      app.base,
      'POST',
      '/api/v1/webhooks',
      headers(member),
      `{"url":"https://127.0.0.1/x","events":["*"],"owner":${deep}}`,
    );
    assert.equal(refused.status, 422, refused.text.slice(0, 200));
    assert.equal(JSON.parse(refused.text).code, 'APP_WEBHOOK_OWNER_INVALID');
    assert.ok(refused.text.length < 2_000, `the answer does not echo the value (${refused.text.length} characters)`);
  });

  it('a lone UTF-16 surrogate is refused where it would be stored as something else; years outside 0001-9999 are a time-range error', async () => {
    const lone = '\ud800';
    const probes: Array<[string, string, unknown, string]> = [
      [
        'POST',
        '/api/v1/webhooks',
        { url: 'https://127.0.0.1/x', events: ['*'], owner: `acme${lone}` },
        'APP_WEBHOOK_OWNER_INVALID',
      ],
      [
        'POST',
        '/api/v1/webhooks',
        { url: 'https://127.0.0.1/x', events: ['*'], description: `a${lone}` },
        'APP_WEBHOOK_DESCRIPTION_INVALID',
      ],
      [
        'PATCH',
        `/api/v1/webhooks/${endpointId}`,
        { enabled: false, disabledReason: `a${lone}` },
        'APP_WEBHOOK_PATCH_INVALID',
      ],
      ['POST', '/api/v1/events', { type: 'order.created', data: { note: `a${lone}` } }, 'APP_WEBHOOK_PAYLOAD_INVALID'],
      [
        'POST',
        `/api/v1/webhooks/${endpointId}/recover`,
        { since: '0000-01-01T00:00:00Z' },
        'APP_WEBHOOK_TIME_RANGE_INVALID',
      ],
    ];
    for (const [method, path, body, code] of probes) {
      // JSON.stringify writes the lone surrogate as the escape \ud800, as a client would send it
      const text = JSON.stringify(body);
      const answer = await raw(
        app.base,
        method,
        path,
        { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json', Accept: 'application/json' },
        text,
      );
      assert.equal(answer.status, 422, `${path}: ${answer.text}`);
      assert.equal(JSON.parse(answer.text).code, code, path);
    }
    const since = await call('GET', `${app.api}/deliveries?since=${encodeURIComponent('0000-12-31T00:00:00Z')}`, {
      token: admin,
    });
    assert.equal(since.body.code, 'APP_WEBHOOK_TIME_RANGE_INVALID', since.text);
    const pair = await call('POST', `${app.api}/events`, {
      token: admin,
      body: { type: 'order.created', data: { note: 'a pair: \ud83d\ude00' } },
    });
    assert.equal(pair.status, 202, `a valid surrogate pair is accepted: ${pair.text}`);
  });

  it('a number past the largest double in an event is refused, never delivered as null', async () => {
    for (const literal of ['1e400', '-1e400']) {
      const answer = await raw(
        app.base,
        'POST',
        '/api/v1/events',
        { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json', Accept: 'application/json' },
        `{"type":"order.created","data":{"amount":${literal}}}`,
      );
      assert.equal(answer.status, 422, answer.text);
      const problem = JSON.parse(answer.text) as { code: string; data: { reason: string } };
      assert.equal(problem.code, 'APP_WEBHOOK_PAYLOAD_INVALID');
      assert.match(problem.data.reason, /Infinity at data\.amount/);
    }
  });

  it('content codings are case-insensitive, x-gzip is gzip, identity is none; two stacked codings are 415', async () => {
    const json = Buffer.from(JSON.stringify({ type: 'order.created', data: {} }));
    const headers = (encoding: string) => ({
      Authorization: `Bearer ${admin}`,
      'Content-Type': 'application/json',
      'Content-Encoding': encoding,
      Accept: 'application/json',
    });
    for (const [encoding, body] of [
      ['GZIP', gzipSync(json)],
      ['x-gzip', gzipSync(json)],
      ['Deflate', deflateSync(json)],
      ['identity', json],
    ] as const) {
      const answer = await raw(app.base, 'POST', '/api/v1/events', headers(encoding), body);
      assert.equal(answer.status, 202, `${encoding}: ${answer.text}`);
    }
    const stacked = await raw(
      app.base,
      'POST',
      '/api/v1/events',
      headers('gzip, deflate'),
      deflateSync(gzipSync(json)),
    );
    assert.equal(stacked.status, 415, stacked.text);
    assert.equal(JSON.parse(stacked.text).code, 'APP_BODY_ENCODING_UNSUPPORTED');
    assert.match(JSON.parse(stacked.text).detail, /stacks 2 codings/);
  });

  it("paging links keep each listing's own filters, events included; the Link header stays under 2 kB, next first", async () => {
    for (let i = 0; i < 3; i += 1) {
      await call('POST', `${app.api}/webhooks`, {
        token: admin,
        body: { url: `https://127.0.0.1/paged-${i}`, events: ['paged.thing'], owner: 'paged' },
      });
    }
    await call('POST', `${app.api}/webhooks`, {
      token: admin,
      body: { url: 'https://127.0.0.1/paged-other', events: ['other.thing'], owner: 'paged' },
    });
    const page = await call('GET', `${app.api}/webhooks?events=paged.thing&owner=paged&per_page=1`, {
      token: admin,
    });
    assert.equal(page.body.total, 3);
    const next = page.body._links.next.href as string;
    assert.match(next, /owner=paged/);
    assert.match(next, /events=paged\.thing/);
    const followed = await call('GET', `${app.base}${next}`, { token: admin });
    assert.equal(followed.body.total, 3, 'the next page lists the same filtered set');
    const long = await call(
      'GET',
      `${app.api}/webhooks?per_page=1&events=${'a'.repeat(250)},${Array.from({ length: 12 }, (_, i) => `e${i}.${'x'.repeat(200)}`).join(',')}`,
      { token: admin },
    );
    const link = long.headers instanceof Headers ? long.headers.get('link') : undefined;
    if (link !== null && link !== undefined) {
      assert.ok(link.length <= 2048, `Link header ${link.length} characters`);
      if (long.body._links.next) assert.match(link, /rel="next"/);
    }
    assert.ok(long.body._links.self, 'the body keeps every link');
  });

  it('logs no stack trace for any of it', () => {
    const stacks = app.logs.filter((line) => /"stack"/.test(line) && /"level":(50|60)/.test(line));
    assert.deepEqual(
      stacks.map((line) => JSON.parse(line).msg),
      [],
    );
    void viewer;
  });
});

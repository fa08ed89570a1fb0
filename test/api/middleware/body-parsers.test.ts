import assert from 'node:assert/strict';
import { request } from 'node:http';
import { before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { eventually } from '../../helpers/poll.ts';
import { startApp, type TestApp } from '../fixtures/app.ts';

/** A POST to `url` with exactly these headers and body chunks (no Content-Type or Content-Length added). */
function rawPost(url: string, headers: Record<string, string>, chunks: Buffer[] = []) {
  return new Promise<{ status: number; body: Record<string, any> }>((resolve, reject) => {
    const target = new URL(url);
    const req = request(
      { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {} }));
      },
    );
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

/** A JSON body of exactly 1,000 bytes, and headers announcing it. */
const BODY = Buffer.from(JSON.stringify({ name: 'x'.repeat(1000 - 11) }));
const BODY_HEADERS = { 'Content-Type': 'application/json', 'Content-Length': '1000' };

/** A POST of BODY to `url` that stops after its first 10 bytes, as a client that stalls does; `answered`: its status. */
function stalledPost(url: string) {
  const target = new URL(url);
  const req = request({
    host: target.hostname,
    port: target.port,
    path: target.pathname,
    method: 'POST',
    headers: BODY_HEADERS,
  });
  const answered = new Promise<number>((resolve, reject) => {
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
  });
  req.write(BODY.subarray(0, 10));
  return { req, answered, finish: () => req.end(BODY.subarray(10)) };
}

describe('body parsers', () => {
  let app: TestApp;
  let small: TestApp;
  before(async () => {
    app = await startApp();
    small = await startApp({ flags: { bodyLimit: '1kb' } });
  });

  const post = (base: string, body: string, type = 'application/json') =>
    fetch(`${base}/authors`, { method: 'POST', headers: { 'Content-Type': type }, body });

  it('a JSON body over 1mb (config.bodyLimit default) is 413 APP_BODY_TOO_LARGE as problem+json', async () => {
    const response = await post(app.api, JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) }));
    assert.equal(response.status, 413);
    assert.equal(response.headers.get('content-type'), 'application/problem+json');
    const problem = (await response.json()) as { code: string; data: { limit: number } };
    assert.equal(problem.code, 'APP_BODY_TOO_LARGE');
    assert.equal(problem.data.limit, 1024 * 1024);
  });

  it('a body just under the limit is accepted', async () => {
    const response = await post(app.api, JSON.stringify({ name: 'x'.repeat(1024 * 1024 - 100) }));
    assert.equal(response.status, 201);
  });

  it('the limit follows config.bodyLimit, for forms too', async () => {
    assert.equal((await post(small.api, JSON.stringify({ name: 'x'.repeat(2000) }))).status, 413);
    const form = await post(
      small.api,
      new URLSearchParams({ name: 'x'.repeat(2000) }).toString(),
      'application/x-www-form-urlencoded',
    );
    assert.equal(form.status, 413);
  });

  for (const [rule, text] of [
    ['truncated JSON', '{"name": "Ada"'],
    ['not JSON at all', 'name=Ada'],
    ['a bare string (JSON bodies are objects or arrays)', '"Ada"'],
  ] as const) {
    it(`malformed JSON (${rule}) is 400 APP_BODY_INVALID`, async () => {
      const response = await post(app.api, text);
      assert.equal(response.status, 400);
      const problem = (await response.json()) as { code: string };
      assert.equal(problem.code, 'APP_BODY_INVALID');
    });
  }

  it('HAL and versioned JSON bodies are parsed as JSON', async () => {
    for (const type of ['application/hal+json', 'application/vnd.app.v1+json', 'application/merge-patch+json']) {
      const response = await post(app.api, JSON.stringify({ name: type }), type);
      assert.equal(response.status, 201, type);
      assert.equal(((await response.json()) as { name: string }).name, type);
    }
  });

  const problemOf = async (response: Response) =>
    (await response.json()) as { code: string; detail: string; data?: Record<string, unknown> };

  for (const [rule, type] of [
    ['text/plain', 'text/plain'],
    ['application/xml', 'application/xml'],
    ['text/plain with a UTF-8 charset', 'text/plain;charset=UTF-8'],
  ] as const) {
    it(`a JSON body sent as ${rule} is 415 APP_BODY_MEDIA_TYPE_UNSUPPORTED, never ignored`, async () => {
      const response = await post(app.api, JSON.stringify({ name: 'Ada' }), type);
      assert.equal(response.status, 415);
      assert.equal(response.headers.get('content-type'), 'application/problem+json');
      const problem = await problemOf(response);
      assert.equal(problem.code, 'APP_BODY_MEDIA_TYPE_UNSUPPORTED');
      assert.deepEqual(problem.data, { contentType: type });
    });
  }

  it('a body without Content-Type is 415 APP_BODY_MEDIA_TYPE_UNSUPPORTED (sized or chunked)', async () => {
    const body = Buffer.from(JSON.stringify({ name: 'Ada' }));
    const framings: Record<string, string>[] = [
      { 'Content-Length': String(body.length) },
      { 'Transfer-Encoding': 'chunked' },
    ];
    for (const headers of framings) {
      const answer = await rawPost(`${app.api}/authors`, headers, [body]);
      assert.equal(answer.status, 415, JSON.stringify(headers));
      assert.equal(answer.body.code, 'APP_BODY_MEDIA_TYPE_UNSUPPORTED');
      assert.deepEqual(answer.body.data, { contentType: '' });
    }
  });

  it('a request with no body at all is served whatever its Content-Type (no length, 0, an empty chunked body)', async () => {
    const bodiless: Record<string, string>[] = [
      {},
      { 'Content-Length': '0' },
      { 'Content-Length': '0', 'Content-Type': 'text/plain' },
      { 'Transfer-Encoding': 'chunked' },
      { 'Transfer-Encoding': 'chunked', 'Content-Type': 'application/xml' },
      { 'Content-Length': '0', 'Content-Type': 'application/json; charset=latin-99' },
    ];
    for (const headers of bodiless) {
      const answer = await rawPost(`${app.api}/authors`, headers);
      // the action ran: the model refuses the missing name
      assert.equal(answer.status, 422, JSON.stringify(headers));
      assert.equal(answer.body.code, 'APP_VALIDATION_FAILED', JSON.stringify(headers));
    }
  });

  it('a form body is still read (application/x-www-form-urlencoded)', async () => {
    const response = await post(
      app.api,
      new URLSearchParams({ name: 'Form Ada' }).toString(),
      'application/x-www-form-urlencoded',
    );
    assert.equal(response.status, 201);
    assert.equal(((await response.json()) as { name: string }).name, 'Form Ada');
  });

  it('JSON sent as a form (curl -d without a Content-Type) is 415 APP_BODY_MEDIA_TYPE_UNSUPPORTED saying to send application/json', async () => {
    const form = 'application/x-www-form-urlencoded';
    for (const body of [JSON.stringify({ name: 'Ada' }), ' [{"name": "Ada"}]']) {
      const response = await post(app.api, body, form);
      assert.equal(response.status, 415, body);
      const problem = await problemOf(response);
      assert.equal(problem.code, 'APP_BODY_MEDIA_TYPE_UNSUPPORTED');
      assert.match(
        problem.detail,
        /is JSON but its Content-Type is "application\/x-www-form-urlencoded".*send it with Content-Type: application\/json/,
      );
      assert.deepEqual(problem.data, { contentType: form });
    }
    // a form whose value holds JSON is a form
    const field = await post(app.api, new URLSearchParams({ name: '{"x": 1}' }).toString(), form);
    assert.equal(field.status, 201);
  });

  it('a JSON or form body declaring a charset other than UTF-8 is 415 APP_BODY_MEDIA_TYPE_UNSUPPORTED naming it', async () => {
    for (const type of [
      'application/json; charset=latin-99',
      'application/json; charset=ISO-8859-1',
      'application/x-www-form-urlencoded; charset=utf-16',
    ]) {
      const body = type.includes('form') ? 'name=Ada' : JSON.stringify({ name: 'Ada' });
      const response = await post(app.api, body, type);
      assert.equal(response.status, 415, type);
      const problem = await problemOf(response);
      assert.equal(problem.code, 'APP_BODY_MEDIA_TYPE_UNSUPPORTED');
      assert.equal(problem.data?.charset, type.split('charset=')[1].toLowerCase());
      assert.match(problem.detail, /charset/);
    }
    for (const type of [
      'application/json; charset=utf-8',
      'application/json; charset="UTF-8"',
      'application/json;charset=utf8',
    ]) {
      const response = await post(app.api, JSON.stringify({ name: type }), type);
      assert.equal(response.status, 201, type);
    }
  });

  it('bytes that are not UTF-8 in a JSON body are 400 APP_BODY_INVALID (plain or gzip); a U+FFFD the client sent is kept', async () => {
    const invalid = Buffer.concat([Buffer.from('{"name": "Ad'), Buffer.from([0xff, 0xfe]), Buffer.from('a"}')]);
    const truncated = Buffer.concat([Buffer.from('{"name": "x'), Buffer.from([0xf0, 0x9f, 0x98]), Buffer.from('"}')]);
    const post = (body: Buffer, coding: string | undefined) =>
      rawPost(
        `${app.api}/authors`,
        {
          'Content-Type': 'application/json',
          'Content-Length': String(body.length),
          ...(coding ? { 'Content-Encoding': coding } : {}),
        },
        [body],
      );
    for (const [body, coding] of [
      [invalid, undefined],
      [truncated, undefined],
      [gzipSync(invalid), 'gzip'],
    ] as const) {
      const answer = await post(body, coding);
      assert.equal(answer.status, 400, `${coding ?? 'plain'}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.code, 'APP_BODY_INVALID');
      assert.match(answer.body.detail, /UTF-8/);
    }
    const replacement = JSON.stringify({ name: 'Ada \uFFFD' });
    for (const [body, coding] of [
      [Buffer.from(replacement), undefined],
      [gzipSync(replacement), 'gzip'],
    ] as const) {
      const answer = await post(body, coding);
      assert.equal(answer.status, 201, `${coding ?? 'plain'}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.name, 'Ada \uFFFD');
    }
  });

  it('one client may have at most bodiesInFlight bytes of bodies being received: past it 429 APP_BODIES_IN_FLIGHT, unread; taken again once they are read', async () => {
    const held = await startApp({ flags: { bodyLimit: '1kb', bodiesInFlight: '2kb' } });
    const stalled = [stalledPost(`${held.api}/authors`), stalledPost(`${held.api}/authors`)];
    const refused = await eventually(
      async () => {
        const answer = await rawPost(`${held.api}/authors`, BODY_HEADERS, [BODY]);
        return answer.status === 429 ? answer : undefined;
      },
      10_000,
      'a third body to be refused',
    );
    assert.equal(refused.body.code, 'APP_BODIES_IN_FLIGHT');
    assert.equal(refused.body.data.limit, 2048);
    for (const upload of stalled) upload.finish();
    assert.deepEqual(await Promise.all(stalled.map(({ answered }) => answered)), [201, 201]);
    assert.equal(
      (await rawPost(`${held.api}/authors`, BODY_HEADERS, [BODY])).status,
      201,
      'their bytes were given back',
    );
  });

  it('the bytes of a body whose request timed out before it arrived are given back with the 503', async () => {
    const timed = await startApp({ flags: { bodyLimit: '1kb', bodiesInFlight: '1500b', requestTimeout: '300ms' } });
    const stalled = stalledPost(`${timed.api}/authors`);
    assert.equal(await stalled.answered, 503);
    stalled.req.destroy();
    const next = await rawPost(`${timed.api}/authors`, BODY_HEADERS, [BODY]);
    assert.equal(next.status, 201, JSON.stringify(next.body));
  });
});

describe('a refused body in the log', () => {
  it('a malformed JSON body is logged without its text: the password and header value it held appear in no line, at trace level', async () => {
    const traced = await startApp({ flags: { logLevel: 'trace' } });
    const body = '{"name":"x","password":"pw-in-a-broken-body","headers":{"X-Key":"hv-in-a-broken-body"},}';
    const response = await fetch(`${traced.api}/authors`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body,
    });
    assert.equal(response.status, 400);
    assert.equal(((await response.json()) as { code: string }).code, 'APP_BODY_INVALID');
    const refused = traced.logs.find((line) => line.msg === 'request refused');
    assert.ok(refused, 'the refusal is logged (debug)');
    assert.match(JSON.stringify(refused), /APP_BODY_INVALID/);
    assert.doesNotMatch(JSON.stringify(traced.logs), /pw-in-a-broken-body|hv-in-a-broken-body/);
  });
});

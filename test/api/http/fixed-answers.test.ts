/**
 * Answers the service makes outside the router (the health paths, the HTTP parser's refusals)
 * follow the same rules as every other answer: a refusal is RFC 9457 problem+json with a stable
 * `APP_` code, and every answer carries `X-Request-Id` (the problem's `requestId` too).
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../fixtures/app.ts';

/** Sends `request` as raw bytes and reads the whole answer (the server closes after a parser refusal). */
function rawExchange(base: string, request: string) {
  const { hostname, port } = new URL(base);
  return new Promise<{ status: number; headers: Record<string, string>; body: string }>((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
  });
}

describe('answers made outside the router', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp();
  });

  for (const path of ['/livez', '/readyz', '/healthz', '/_app/health']) {
    it(`${path} refuses other methods with the standard 405 problem (APP_METHOD_NOT_ALLOWED, Allow, request id)`, async () => {
      for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS']) {
        const response = await fetch(`${app.base}${path}`, { method, headers: { 'X-Request-Id': 'health-405' } });
        assert.equal(response.status, 405, `${method} ${path}`);
        assert.equal(response.headers.get('content-type'), 'application/problem+json', `${method} ${path}`);
        assert.equal(response.headers.get('allow'), 'GET, HEAD');
        assert.equal(response.headers.get('x-request-id'), 'health-405');
        const problem = (await response.json()) as Record<string, unknown>;
        assert.equal(problem.code, 'APP_METHOD_NOT_ALLOWED');
        assert.equal(problem.status, 405);
        assert.deepEqual(problem.data, { allow: ['GET', 'HEAD'] });
        assert.equal(problem.requestId, 'health-405');
      }
    });
  }

  it('HEAD on the health paths still answers like GET', async () => {
    for (const path of ['/livez', '/readyz']) {
      const response = await fetch(`${app.base}${path}`, { method: 'HEAD' });
      assert.equal(response.status, 200, path);
    }
  });

  it('a method the HTTP parser refuses (an unknown token) is 501 APP_METHOD_NOT_IMPLEMENTED with a request id', async () => {
    const answer = await rawExchange(app.base, 'FOO /api/v1/webhooks HTTP/1.1\r\nHost: localhost\r\n\r\n');
    assert.equal(answer.status, 501);
    assert.equal(answer.headers['content-type'], 'application/problem+json');
    const id = answer.headers['x-request-id'];
    assert.match(id ?? '', /^[0-9a-f-]{36}$/, 'a request id is made for the refusal');
    const problem = JSON.parse(answer.body) as Record<string, unknown>;
    assert.equal(problem.code, 'APP_METHOD_NOT_IMPLEMENTED');
    assert.equal(problem.requestId, id);

    const given = await rawExchange(
      app.base,
      'FOO /api/v1/webhooks HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: foo-req-1\r\n\r\n',
    );
    assert.equal(given.status, 501);
    assert.equal(given.headers['x-request-id'], 'foo-req-1', "the client's sane id is kept");
    assert.equal((JSON.parse(given.body) as Record<string, unknown>).requestId, 'foo-req-1');
  });

  it('every refusal of the HTTP parser (broken framing, oversized headers) carries a fresh request id', async () => {
    const broken = await rawExchange(
      app.base,
      'POST /api/v1/webhooks HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
    );
    const huge = await rawExchange(
      app.base,
      `GET /livez HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    for (const [answer, status, code] of [
      [broken, 400, 'APP_REQUEST_MALFORMED'],
      [huge, 431, 'APP_REQUEST_HEADERS_TOO_LARGE'],
    ] as const) {
      assert.equal(answer.status, status);
      const problem = JSON.parse(answer.body) as Record<string, unknown>;
      assert.equal(problem.code, code);
      assert.match(answer.headers['x-request-id'] ?? '', /^[0-9a-f-]{36}$/);
      assert.equal(problem.requestId, answer.headers['x-request-id']);
    }
  });

  it('every refusal made before the middleware (parser refusals, an unmet Expect) carries the security headers: no sniffing, no framing, nothing loaded', async () => {
    const answers = await Promise.all([
      rawExchange(app.base, 'FOO / HTTP/1.1\r\nHost: localhost\r\n\r\n'),
      rawExchange(app.base, 'GET / HTTP/1.1\r\nHost: localhost\r\nBad Header\r\n\r\n'),
      rawExchange(app.base, `GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
      rawExchange(app.base, 'GET /livez HTTP/1.1\r\nHost: localhost\r\nExpect: teapot\r\nConnection: close\r\n\r\n'),
    ]);
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [501, 400, 431, 417],
    );
    for (const answer of answers) {
      assert.equal(answer.headers['x-content-type-options'], 'nosniff', String(answer.status));
      assert.equal(
        answer.headers['content-security-policy'],
        "default-src 'none'; frame-ancestors 'none'",
        String(answer.status),
      );
      assert.equal(answer.headers['x-frame-options'], 'DENY', String(answer.status));
    }
  });

  it('an Expect other than 100-continue is 417 APP_EXPECTATION_UNSUPPORTED as problem+json with the request id', async () => {
    const answer = await rawExchange(
      app.base,
      'GET /livez HTTP/1.1\r\nHost: localhost\r\nExpect: teapot\r\nX-Request-Id: expect-1\r\nConnection: close\r\n\r\n',
    );
    assert.equal(answer.status, 417);
    assert.equal(answer.headers['content-type'], 'application/problem+json');
    assert.equal(answer.headers['x-request-id'], 'expect-1');
    const problem = JSON.parse(answer.body) as Record<string, unknown>;
    assert.equal(problem.code, 'APP_EXPECTATION_UNSUPPORTED');
    assert.deepEqual(problem.data, { expect: 'teapot' });
    assert.equal(problem.requestId, 'expect-1');

    const status = await new Promise<number | undefined>((resolve, reject) => {
      const { hostname, port } = new URL(app.base);
      const req = request(
        {
          host: hostname,
          port,
          method: 'POST',
          path: '/api/v1/authors',
          headers: { Expect: '100-continue', 'Content-Type': 'application/json' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode);
        },
      );
      req.on('continue', () => req.end(JSON.stringify({ name: 'Ada' })));
      req.on('error', reject);
    });
    assert.equal(status, 201, 'Expect: 100-continue is served as before');
  });

  it('/livez answers 200 whatever its query: the health paths are not held to api.maxQueryLength', async () => {
    for (const path of ['/livez', '/readyz', '/healthz', '/_app/health']) {
      const response = await fetch(`${app.base}${path}?x=${'a'.repeat(5000)}`);
      assert.equal(response.status, 200, path);
      assert.equal(((await response.json()) as { status: string }).status, 'ok');
    }
    const api = await fetch(`${app.api}/authors?x=${'a'.repeat(5000)}`);
    assert.equal(api.status, 414, 'other paths keep the limit');
  });
});

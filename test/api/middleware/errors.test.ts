import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { defineController } from '../../../api/model-framework/routing/controller.ts';
import type { RouteTable } from '../../../api/model-framework/routing/table.ts';
import { ROUTES, startApp, testDatabase, type TestApp } from '../fixtures/app.ts';

const db = await testDatabase();

/** Routes that fail on purpose. */
const failing = defineController({
  async sql() {
    await db.sql`select secret_column from no_such_table_xyz`;
  },
  async text() {
    await db.sql`select ${'not a number'}::integer`;
  },
  plain() {
    throw new Error('the file /etc/app/secret.key is unreadable');
  },
  boom(ctx) {
    ctx.boom.tooManyRequests('slow down', {
      code: 'APP_API_RATE_LIMITED',
      data: { limit: 1, retryAfter: 2, windowMs: 1000 },
      headers: { 'Retry-After': '2' },
    });
  },
});

const routes: RouteTable = {
  ...ROUTES,
  'GET /fail/sql': { controller: 'failing.sql' },
  'GET /fail/text': { controller: 'failing.text' },
  'GET /fail/plain': { controller: 'failing.plain' },
  'GET /fail/boom': { controller: 'failing.boom' },
};

async function problem(url: string, init?: RequestInit) {
  const response = await fetch(url, init);
  const text = await response.text();
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    headers: response.headers,
    text,
    body: JSON.parse(text),
  };
}

describe('errors are RFC 9457 problem+json', () => {
  let test: TestApp;
  let production: TestApp;
  let development: TestApp;
  before(async () => {
    test = await startApp({ routes, controllers: { failing } });
    production = await startApp({ routes, controllers: { failing }, flags: { env: 'production' } });
    development = await startApp({ routes, controllers: { failing }, flags: { env: 'development' } });
  });

  it('an unknown route is 404 APP_NOT_FOUND with the request id', async () => {
    const answer = await problem(`${test.base}/no/such/route`, { headers: { 'X-Request-Id': 'req-404' } });
    assert.equal(answer.status, 404);
    assert.equal(answer.type, 'application/problem+json');
    assert.deepEqual(answer.body, {
      type: 'about:blank',
      title: 'Not Found',
      status: 404,
      detail: 'no route for GET /no/such/route',
      code: 'APP_NOT_FOUND',
      requestId: 'req-404',
    });
    assert.match(answer.headers.get('etag') ?? '', /^W\/"/, 'a problem is a JSON answer too');
  });

  it('a known path with another method is 405 APP_METHOD_NOT_ALLOWED with Allow', async () => {
    const answer = await problem(`${test.api}/posts`, { method: 'PUT' });
    assert.equal(answer.status, 405);
    assert.equal(answer.body.code, 'APP_METHOD_NOT_ALLOWED');
    assert.match(answer.headers.get('allow') ?? '', /GET/);
    assert.match(answer.headers.get('allow') ?? '', /POST/);
  });

  for (const env of ['production', 'test'] as const) {
    it(`in ${env}, a 500 from SQL leaks neither the SQL, the message nor a stack`, async () => {
      const app = env === 'production' ? production : test;
      for (const path of ['/fail/sql', '/fail/plain']) {
        const answer = await problem(`${app.base}${path}`);
        assert.equal(answer.status, 500);
        assert.equal(answer.body.detail, 'Internal Server Error');
        assert.doesNotMatch(answer.text, /no_such_table|secret_column|secret\.key|\bat\s+\S+\s\(|\.ts:\d+/);
        assert.equal(answer.body.requestId, answer.headers.get('x-request-id'));
      }
    });
  }

  it('in development a 500 shows the message to the developer, still without a stack trace', async () => {
    const answer = await problem(`${development.base}/fail/plain`);
    assert.equal(answer.status, 500);
    assert.equal(answer.body.detail, 'the file /etc/app/secret.key is unreadable');
    assert.doesNotMatch(answer.text, /\bat\s+\S+\s\(|\.ts:\d+/);
  });

  it('Postgres "invalid text representation" is 400 APP_VALUE_INVALID (the one error table)', async () => {
    const answer = await problem(`${production.base}/fail/text`);
    assert.equal(answer.status, 400);
    assert.equal(answer.body.code, 'APP_VALUE_INVALID');
  });

  it('ctx.boom helpers answer problem+json with code, data and headers', async () => {
    const answer = await problem(`${test.base}/fail/boom`);
    assert.equal(answer.status, 429);
    assert.equal(answer.body.code, 'APP_API_RATE_LIMITED');
    assert.deepEqual(answer.body.data, { limit: 1, retryAfter: 2, windowMs: 1000 });
    assert.equal(answer.headers.get('retry-after'), '2');
  });
});

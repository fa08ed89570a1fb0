import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../fixtures/app.ts';

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
});

/**
 * Answers the service makes outside the router (the health paths) follow the same rules as
 * every other answer: a refusal is RFC 9457 problem+json with a stable `APP_` code, and every
 * answer carries `X-Request-Id` (the problem's `requestId` too).
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { startApp, type TestApp } from '../fixtures/app.ts';

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

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startApp } from '../fixtures/app.ts';

describe('CORS', () => {
  it('no origins configured: no CORS headers', async () => {
    const app = await startApp();
    const response = await fetch(`${app.api}/authors`, { headers: { Origin: 'https://web.example' } });
    assert.equal(response.headers.get('access-control-allow-origin'), null);
  });

  it('a configured origin is allowed and may read the paging and id headers; another is not', async () => {
    const app = await startApp({ flags: { cors: { origins: ['https://web.example'] } } });
    const allowed = await fetch(`${app.api}/authors`, { headers: { Origin: 'https://web.example' } });
    assert.equal(allowed.headers.get('access-control-allow-origin'), 'https://web.example');
    const exposed = allowed.headers.get('access-control-expose-headers') ?? '';
    for (const name of ['X-Request-Id', 'X-Total-Count', 'Link', 'ETag', 'Location'])
      assert.match(exposed, new RegExp(name));
    const other = await fetch(`${app.api}/authors`, { headers: { Origin: 'https://evil.example' } });
    assert.equal(other.headers.get('access-control-allow-origin'), null);
    const preflight = await fetch(`${app.api}/authors`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://web.example', 'Access-Control-Request-Method': 'PATCH' },
    });
    assert.equal(preflight.status, 204);
    assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /PATCH/);
  });
});

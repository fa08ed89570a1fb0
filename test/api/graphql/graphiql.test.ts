import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startGraphqlApp } from './fixtures.ts';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('GraphiQL page', () => {
  it('serves the IDE to a browser in development, its assets from the project (no CDN), allowed by the development CSP', async () => {
    const app = await startGraphqlApp({ env: 'development' });
    const page = await fetch(`${app.base}/_app/gql`, { headers: { Accept: BROWSER_ACCEPT } });
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const html = await page.text();
    assert.match(html, /"endpoint": "\/_app\/gql"/);
    // every asset the page loads comes from this process; a `data:` one (its empty icon) loads nothing
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)]
      .map((match) => match[1])
      .filter((asset) => !asset.startsWith('data:'));
    assert.ok(assets.length > 0);
    for (const asset of assets) {
      assert.ok(asset.startsWith('/_app/gql/ruru-static/'), `${asset} is served by this process`);
      const response = await fetch(`${app.base}${asset}`);
      assert.equal(response.status, 200, asset);
      assert.ok((await response.arrayBuffer()).byteLength > 0);
    }
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self' 'unsafe-inline'/);
    assert.match(csp, /worker-src 'self' blob:/);
  });

  it('still answers GraphQL to GraphQL clients on the same path in development', async () => {
    const app = await startGraphqlApp({ env: 'development' });
    const response = await fetch(`${app.base}/_app/gql?query=${encodeURIComponent('{ __typename }')}`, {
      headers: { Accept: 'application/graphql-response+json' },
    });
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { data: { __typename: 'Query' } });
  });

  for (const env of ['test', 'production']) {
    it(`is not served in ${env}`, async () => {
      const app = await startGraphqlApp({ env });
      const page = await fetch(`${app.base}/_app/gql`, { headers: { Accept: BROWSER_ACCEPT } });
      assert.doesNotMatch(page.headers.get('content-type') ?? '', /^text\/html/);
      const asset = await fetch(`${app.base}/_app/gql/ruru-static/ruru.js`);
      assert.equal(asset.status, 404);
    });
  }
});

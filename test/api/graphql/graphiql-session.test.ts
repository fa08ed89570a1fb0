/**
 * The GraphiQL page opened with a session (the console's Account page links to it) carries the
 * session's CSRF token (`<meta name="csrf-token">`, which its script sends as `X-CSRF-Token`), the
 * token the GraphQL path requires of a cookie-authenticated POST (docs/accounts-and-console.md "CSRF").
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Browser, startAccounts } from '../accounts/helpers.ts';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('GraphiQL with a session', () => {
  it("starts its headers with the session's CSRF token, which the GraphQL path accepts", async () => {
    const app = await startAccounts({ env: 'development' });
    const user = await app.user({ role: 'admin' });
    const browser = new Browser(app.base);
    await browser.signIn(user.email);
    const without = await browser.request('POST', '/_app/gql', { json: { query: '{ __typename }' } });
    assert.equal(without.status, 403, 'a cookie-authenticated POST needs the token');

    const page = await browser.request('GET', '/_app/gql', { headers: { accept: BROWSER_ACCEPT } });
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(page.headers.get('cache-control'), 'no-store');
    const token = /<meta name="csrf-token" content="([^"]+)"/.exec(page.text)?.[1];
    assert.ok(token, 'the page carries the token as the console pages do');
    const answer = await browser.request('POST', '/_app/gql', {
      json: { query: '{ __typename }' },
      headers: { 'x-csrf-token': token },
    });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body, { data: { __typename: 'Query' } });

    const anonymous = await fetch(`${app.base}/_app/gql`, { headers: { accept: BROWSER_ACCEPT } });
    assert.doesNotMatch(await anonymous.text(), /csrf-token/, 'without a session there is no token to send');
  });
});

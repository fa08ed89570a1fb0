/**
 * The GraphiQL page opened with a session (the console's Account page links to it) carries the
 * session's CSRF token (`<meta name="csrf-token">`, which its script sends as `X-CSRF-Token`), the
 * token the GraphQL path requires of a cookie-authenticated POST (docs/accounts-and-console.md "CSRF").
 * The Account page links to GraphiQL only where it is served (development): elsewhere a browser's
 * GET of the GraphQL path answers a GraphQL error as JSON, so the page names the path unlinked.
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

    const account = await browser.request('GET', '/account', { headers: { accept: BROWSER_ACCEPT } });
    assert.match(account.text, /<a href="\/_app\/gql">GraphiQL<\/a>/, 'the Account page links to it');

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

  it('is not linked from the Account page where it is not served: the page names the path', async () => {
    const app = await startAccounts();
    const user = await app.user({ role: 'admin' });
    const browser = new Browser(app.base);
    await browser.signIn(user.email);
    const account = await browser.request('GET', '/account', { headers: { accept: BROWSER_ACCEPT } });
    assert.equal(account.status, 200);
    assert.match(account.text, /GraphQL at <code>\/_app\/gql<\/code>/);
    assert.doesNotMatch(account.text, /href="\/_app\/gql"/, 'no link to a path that answers a browser JSON');
    const followed = await browser.request('GET', '/_app/gql', { headers: { accept: BROWSER_ACCEPT } });
    assert.match(followed.headers.get('content-type') ?? '', /json/, 'what the link would have shown');
  });
});

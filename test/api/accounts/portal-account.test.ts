/**
 * A tenant portal session on the account pages (api/accounts/portal-account.ts, routes.ts): it
 * is signed in without an account, so `/account` says whose portal it is, as which role, and what
 * it may and may not do by the permission table, rather than sending it to the sign-in page;
 * `/password` refuses it with the reason (403 `APP_FORBIDDEN`). A browser with no session still
 * goes to the sign-in page.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OPERATIONS } from '../../../shared/access/permissions.ts';
import { Browser, startAccounts } from './helpers.ts';

const app = await startAccounts();

/** The items of the list under the heading `heading`. */
const listUnder = (html: string, heading: string): string[] => {
  const list = new RegExp(`<h2>${heading}</h2>\\s*<ul>([\\s\\S]*?)</ul>`).exec(html)?.[1] ?? '';
  return [...list.matchAll(/<li>([^<]*)<\/li>/g)].map((found) => found[1].replaceAll('&#39;', "'"));
};

describe('a portal session on the account pages', () => {
  it('/account says whose portal it is and what a member may and may not do, not the sign-in page', async () => {
    const browser = await app.portal('member');
    const page = await browser.request('GET', '/account', { html: true });
    assert.equal(page.status, 200, page.text);
    assert.match(page.text, /<title>Your portal session · app<\/title>/);
    assert.match(page.text, /webhook console of <strong>acme<\/strong> as a member, opened by a portal link/);
    assert.doesNotMatch(page.text, /Change your password/);
    const may = listUnder(page.text, 'What it may do');
    const mayNot = listUnder(page.text, 'What it may not do');
    assert.ok(may.includes('emit an event'), may.join('; '));
    assert.ok(may.includes('register an endpoint'));
    assert.ok(mayNot.includes('mint an API token'), mayNot.join('; '));
    assert.ok(mayNot.includes('list users'));
    assert.ok(!may.some((text) => text.includes('token')), `a portal session has no tokens: ${may.join('; ')}`);
    assert.equal(may.length + mayNot.length, OPERATIONS.length, 'every operation of the table, once');
  });

  it("a viewer's may not do what it may only read", async () => {
    const page = await (await app.portal('viewer')).request('GET', '/account', { html: true });
    assert.match(page.text, /as a viewer/);
    assert.ok(listUnder(page.text, 'What it may not do').includes('emit an event'));
    assert.ok(
      listUnder(page.text, 'What it may do').includes('read endpoints, events, deliveries and the event-type catalog'),
    );
  });

  it('a JSON client gets the same in the page object', async () => {
    const answer = await (await app.portal('member')).request('GET', '/account');
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.page, 'home');
    assert.equal(answer.body.data.portal.owner, 'acme');
    assert.equal(answer.body.data.portal.role, 'member');
    assert.equal(answer.body.user.portal, true);
  });

  it('/password refuses a portal session with the reason, where a browser without a session still signs in first', async () => {
    const refused = await (await app.portal('member')).request('GET', '/password', { html: true });
    assert.equal(refused.status, 403);
    assert.match(refused.text, /a portal session has no password to change/);
    assert.match(refused.text, /APP_FORBIDDEN/);
    const anonymous = await new Browser(app.base).request('GET', '/password', { html: true });
    assert.equal(anonymous.status, 302);
    assert.equal(anonymous.headers.get('location'), '/login?next=%2Fpassword');
  });
});

/**
 * The Users page's actions refuse what could not work (docs/accounts-and-console.md "Console"):
 * an admin does not disable itself (that would end the session it asks in), and no set-password
 * link is made for a disabled user (it could never be used). Both rules are the core's: the forms
 * posted directly are refused as the page that omits their buttons is.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { setUserDisabled } from '../../../shared/accounts/users.ts';
import { OPERATOR } from '../../../shared/access/actor.ts';
import { Browser, startAccounts } from '../accounts/helpers.ts';

describe('console Users page: actions that could not work are refused', () => {
  let app: Awaited<ReturnType<typeof startAccounts>>;
  let admin: { id: string; browser: Browser; csrf: string };

  before(async () => {
    app = await startAccounts();
    const user = await app.user({ role: 'admin' });
    const browser = new Browser(app.base);
    admin = { id: user.id, browser, csrf: await browser.signIn(user.email) };
  });

  const disabledAt = async (id: string) =>
    (await app.accounts.sql`SELECT disabled_at FROM app_users WHERE id = ${id}`)[0].disabled_at;
  const links = async (id: string) =>
    Number((await app.accounts.sql`SELECT count(*)::int AS n FROM app_password_links WHERE user_id = ${id}`)[0].n);

  it('an admin disabling itself gets 409 APP_USER_DISABLE_SELF and stays enabled and signed in', async () => {
    const json = await admin.browser.request('POST', `/users/${admin.id}/disable`, { json: { _csrf: admin.csrf } });
    assert.equal(json.status, 409, json.text);
    assert.equal(json.body.code, 'APP_USER_DISABLE_SELF');
    const page = await admin.browser.request('POST', `/users/${admin.id}/disable`, { form: { _csrf: admin.csrf } });
    assert.equal(page.status, 409);
    assert.match(page.text, /may not disable yourself/);
    assert.equal(await disabledAt(admin.id), null);
    assert.equal((await admin.browser.request('GET', '/account')).status, 200, 'the session it asked in goes on');
  });

  it('another admin may still be disabled by it', async () => {
    const other = await app.user({ role: 'admin' });
    const answer = await admin.browser.request('POST', `/users/${other.id}/disable`, { json: { _csrf: admin.csrf } });
    assert.ok(answer.status < 400, answer.text);
    assert.notEqual(await disabledAt(other.id), null);
  });

  it('a new link for a disabled user is refused with 409 APP_USER_DISABLED, and the page offers none', async () => {
    const member = await app.user({ role: 'member', owner: 'acme' });
    await setUserDisabled(app.accounts, OPERATOR, member.id, true);
    const answer = await admin.browser.request('POST', `/users/${member.id}/reset-link`, {
      json: { _csrf: admin.csrf },
    });
    assert.equal(answer.status, 409, answer.text);
    assert.equal(answer.body.errors?.[0]?.code ?? answer.body.code, 'APP_USER_DISABLED');
    assert.equal(await links(member.id), 0, 'no link was made');
    const page = await admin.browser.request('GET', '/users', { html: true });
    assert.doesNotMatch(page.text, new RegExp(`/users/${member.id}/reset-link`));
    await setUserDisabled(app.accounts, OPERATOR, member.id, false);
    const enabled = await admin.browser.request('GET', '/users', { html: true });
    assert.match(enabled.text, new RegExp(`/users/${member.id}/reset-link`), 'enabled, it gets its link again');
  });
});

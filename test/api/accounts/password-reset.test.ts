import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startSmtpServer } from '../../helpers/smtp.ts';
import {
  completePasswordLink,
  createPasswordLink,
  mailedLinkBase,
  requestPasswordReset,
  RESETS_PER_TTL,
} from '../../../shared/accounts/password-links.ts';
import { Browser, PASSWORD, startAccounts } from './helpers.ts';
import { lockTable } from '../../helpers/table-lock.ts';

const mailbox = await startSmtpServer();
const app = await startAccounts({
  mail: { url: mailbox.url, from: 'hooks <hooks@example.com>' },
  publicUrl: 'https://hooks.example.com',
  auth: { lockout: false },
});

/** A browser that has visited the forgotten-password page: its anonymous CSRF token. */
async function visit(browser: Browser, path: string): Promise<string> {
  const page = await browser.request('GET', path);
  assert.equal(page.status, 200);
  return page.body.csrfToken as string;
}

describe('forgotten password: a single-use link by mail', () => {
  it('the same answer whether or not the email exists; only an existing one gets a mail', async () => {
    const user = await app.user();
    const browser = new Browser(app.base);
    const token = await visit(browser, '/forgot-password');
    const unknown = await browser.request('POST', '/forgot-password', {
      json: { email: 'nobody-here@example.com' },
      headers: { 'x-csrf-token': token },
    });
    const known = await browser.request('POST', '/forgot-password', {
      json: { email: user.email },
      headers: { 'x-csrf-token': token },
    });
    assert.equal(unknown.status, 202);
    assert.equal(known.status, 202);
    assert.deepEqual(unknown.body.data, known.body.data);
    const mail = await mailbox.next();
    assert.equal(mail.subject, 'Reset your password');
    assert.equal((mail.to as { text: string }).text, user.email, 'the mail went to the existing user only');
    assert.equal(mail.from?.value[0]?.address, 'hooks@example.com');
    assert.match(
      mail.text ?? '',
      /https:\/\/hooks\.example\.com\/reset-password\?token=app_pwl_[\w-]{43}/,
      'the link is built on publicUrl',
    );
  });

  it('the link works once: it sets the password, ends every session, and is refused the second time', async () => {
    const user = await app.user();
    const signedIn = new Browser(app.base);
    await signedIn.signIn(user.email);
    const browser = new Browser(app.base);
    const csrf = await visit(browser, '/forgot-password');
    await browser.request('POST', '/forgot-password', {
      json: { email: user.email },
      headers: { 'x-csrf-token': csrf },
    });
    const mail = await mailbox.next();
    const link = new URL(/https:\/\/\S+/.exec(mail.text ?? '')?.[0] as string);
    const followed = await browser.request('GET', `${link.pathname}${link.search}`, { html: true });
    assert.equal(followed.status, 303, 'the link leaves the address bar at once');
    assert.equal(followed.headers.get('location'), '/reset-password');
    const form = await browser.request('GET', '/reset-password', { html: true });
    assert.equal(form.status, 200);
    const token = link.searchParams.get('token') as string;
    assert.ok(!form.text.includes(token), 'the page does not carry the token');
    assert.match(form.text, /name="password"/);
    const formCsrf = /<meta name="csrf-token" content="([^"]+)">/.exec(form.text)?.[1] as string;
    const weak = await browser.request('POST', '/reset-password', {
      json: { token, password: 'short' },
      headers: { 'x-csrf-token': formCsrf },
    });
    assert.equal(weak.status, 422);
    assert.equal(weak.body.code, 'APP_PASSWORD_WEAK', 'a refused password does not spend the link');
    // the form as the page has it: no token field, the link cookie carries it
    const reset = await browser.request('POST', '/reset-password', {
      form: { _csrf: formCsrf, password: 'a brand new passphrase' },
    });
    assert.equal(reset.status, 200, reset.text);
    assert.match(reset.text, /Your password is set/);
    assert.ok(!browser.cookies.has('app_link'), 'the spent token is no longer kept');
    assert.equal((await signedIn.request('GET', '/api/v1/webhooks')).status, 401, 'the sessions of the user ended');
    const again = await browser.request('POST', '/reset-password', {
      json: { token, password: 'yet another passphrase' },
      headers: { 'x-csrf-token': formCsrf },
    });
    assert.equal(again.status, 422);
    assert.equal(again.body.code, 'APP_PASSWORD_LINK_INVALID');
    await new Browser(app.base).signIn(user.email, 'a brand new passphrase');
    assert.equal(
      (await new Browser(app.base).request('POST', '/login', { json: { email: user.email, password: PASSWORD } }))
        .status,
      401,
    );
  });

  it('the answer does not wait for the link to be made: its time says nothing of whether the email exists', async () => {
    const user = await app.user();
    const browser = new Browser(app.base);
    const csrf = await visit(browser, '/forgot-password');
    // the link's row cannot be written while this lock is held: an answer that waited for it would hang
    const lock = await lockTable(app.db.url, 'app_password_links');
    try {
      const answer = await Promise.race([
        browser.request('POST', '/forgot-password', { json: { email: user.email }, headers: { 'x-csrf-token': csrf } }),
        new Promise<undefined>((resolve) => setTimeout(resolve, 3000, undefined)),
      ]);
      assert.equal(answer?.status, 202, 'answered while the link could not be written');
    } finally {
      await lock.release();
    }
    const mail = await mailbox.next();
    assert.equal((mail.to as { text: string }).text, user.email, 'the link is made and mailed after the answer');
  });

  it('a password change spends the links asked before it: a reset link no longer sets the password', async () => {
    const user = await app.user();
    const { token: reset } = await createPasswordLink(app.accounts, user.id, 'reset');
    const { token: invite } = await createPasswordLink(app.accounts, user.id, 'invite');
    const browser = new Browser(app.base);
    const csrf = await browser.signIn(user.email);
    const changed = await browser.request('POST', '/password', {
      json: { currentPassword: PASSWORD, newPassword: 'a changed long passphrase' },
      headers: { 'x-csrf-token': csrf },
    });
    assert.equal(changed.status, 200, changed.text);
    for (const token of [reset, invite])
      await assert.rejects(completePasswordLink(app.accounts, token, 'one the other person chose'), {
        code: 'APP_PASSWORD_LINK_INVALID',
      });
    await new Browser(app.base).signIn(user.email, 'a changed long passphrase');
  });

  it('the page of a working link names its account in a read-only username field; a used or unknown link names none', async () => {
    const user = await app.user({ role: 'member', owner: 'acme' });
    const { token } = await createPasswordLink(app.accounts, user.id, 'invite');
    const field = `<input type="email" name="email" autocomplete="username" value="${user.email}" readonly>`;
    // a browser: the link's redirect, then the page from the link cookie
    const browser = new Browser(app.base);
    const landing = await browser.request('GET', `/reset-password?token=${token}`, { html: true });
    assert.equal(landing.status, 303);
    const page = await browser.request('GET', '/reset-password', { html: true });
    assert.ok(page.text.includes(field), page.text);
    assert.match(page.text, /autocomplete="new-password"/);
    // a JSON client with the token
    const json = await new Browser(app.base).request('GET', `/reset-password?token=${token}`);
    assert.equal(json.body.data.email, user.email);
    // a password refused: the form again, the field still there
    const weak = await browser.request('POST', '/reset-password', {
      form: { _csrf: page.text.match(/name="_csrf" value="([^"]+)"/)?.[1] ?? '', password: 'short' },
    });
    assert.equal(weak.status, 422);
    assert.ok(weak.text.includes(field), 'shown again with the account');

    const other = new Browser(app.base);
    const unknown = await other.request('GET', `/reset-password?token=app_pwl_${'x'.repeat(43)}`);
    assert.equal(unknown.body.data.email, null);
    await completePasswordLink(app.accounts, token, 'a passphrase long enough');
    const used = await other.request('GET', `/reset-password?token=${token}`);
    assert.equal(used.body.data.email, null, 'a spent link names no account');
    assert.ok(!used.text.includes(user.email));
    const usedPage = await browser.request('GET', '/reset-password', { html: true });
    assert.ok(!usedPage.text.includes(user.email), 'nor does the page its cookie still opens');
    assert.doesNotMatch(usedPage.text, /name="password"/, 'which offers no form that could only be refused');
    assert.match(usedPage.text, /This link does not work any more/);
  });

  it('made-up and malformed tokens are refused alike', async () => {
    const browser = new Browser(app.base);
    const csrf = await visit(browser, '/reset-password');
    for (const token of ['app_pwl_' + 'A'.repeat(43), 'nonsense', 42, null]) {
      const answer = await browser.request('POST', '/reset-password', {
        json: { token, password: 'a fine long passphrase' },
        headers: { 'x-csrf-token': csrf },
      });
      assert.equal(answer.status, 422, String(token));
      assert.equal(answer.body.code, 'APP_PASSWORD_LINK_INVALID');
    }
  });

  it("a link is never built on the asker's Host header in production: without publicUrl, no link is made and nothing is mailed", async () => {
    const user = await app.user();
    const production = (publicUrl: string | null) => ({
      ...app.accounts,
      config: { ...app.accounts.config, env: 'production' as const, publicUrl },
    });
    const links = async () =>
      (await app.db.sql`select count(*)::int as n from app_password_links where user_id = ${user.id}`)[0].n;
    assert.equal(await requestPasswordReset(production(null), user.email, 'http://evil.example'), 'no-public-url');
    assert.equal(await links(), 0, 'no link was made');
    assert.equal(mailedLinkBase(production(null).config, 'http://evil.example'), null);
    assert.equal(
      mailedLinkBase({ ...app.accounts.config, env: 'development', publicUrl: null }, 'http://localhost:3000'),
      'http://localhost:3000',
      "outside production the request's origin serves",
    );
    // with publicUrl the same request mails a link on it, whatever the Host
    assert.equal(
      await requestPasswordReset(production('https://hooks.example.com'), user.email, 'http://evil.example'),
      'mailed',
    );
    assert.equal(await links(), 1);
    assert.match((await mailbox.next()).text ?? '', /https:\/\/hooks\.example\.com\/reset-password\?token=/);
  });

  it('one account is sent at most RESETS_PER_TTL reset links within auth.resetTtl, however many ask and however fast', async () => {
    const quiet = { ...app.accounts, mailer: undefined }; // the links are counted; no mail queues up for the other tests
    const links = async (id: string) =>
      (
        await app.db.sql`select count(*)::int as n from app_password_links where user_id = ${id} and purpose = 'reset'`
      )[0].n;
    const one = await app.user();
    const asked = [];
    for (let i = 0; i <= RESETS_PER_TTL; i++) asked.push(await requestPasswordReset(quiet, one.email, app.base));
    assert.deepEqual(asked, [...Array(RESETS_PER_TTL).fill('mailed'), 'too-many']);
    assert.equal(await links(one.id), RESETS_PER_TTL);
    // asked at once: each request counts what the others made
    const other = await app.user();
    const atOnce = await Promise.all(
      Array.from({ length: RESETS_PER_TTL + 3 }, () => requestPasswordReset(quiet, other.email, app.base)),
    );
    assert.equal(atOnce.filter((answer) => answer === 'mailed').length, RESETS_PER_TTL);
    assert.equal(await links(other.id), RESETS_PER_TTL);
    // a resetTtl later the account may be sent one again
    const later = { ...quiet, now: () => Date.now() + app.accounts.config.auth.resetTtl + 1 };
    assert.equal(await requestPasswordReset(later, one.email, app.base), 'mailed');
  });
});

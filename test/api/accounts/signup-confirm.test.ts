import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ParsedMail } from 'mailparser';
import { startSmtpServer } from '../../helpers/smtp.ts';
import { OPERATOR } from '../../../shared/access/actor.ts';
import { setUserDisabled } from '../../../shared/accounts/users.ts';
import {
  completeSignUp,
  pendingSignUp,
  requestSignUp,
  SIGNUP_MAILS_PER_TTL,
} from '../../../shared/accounts/signup-links.ts';
import { Browser, PASSWORD, startAccounts } from './helpers.ts';
import { lockTable } from '../../helpers/table-lock.ts';

const mailbox = await startSmtpServer();
const app = await startAccounts({
  mail: { url: mailbox.url, from: 'hooks <hooks@example.com>' },
  publicUrl: 'https://hooks.example.com',
  auth: { lockout: false, signup: true },
});

const NEW_PASSWORD = 'a long and unusual passphrase';
let made = 0;
const freshEmail = () => `signup${(made += 1)}-${Math.random().toString(36).slice(2, 8)}@example.com`;

/** How many users have this email (in any case). */
const usersWith = async (email: string) =>
  (await app.db.sql`select count(*)::int as n from app_users where lower(email) = lower(${email})`)[0].n as number;

const recipient = (mail: ParsedMail) => (mail.to as { text: string }).text;

/** A browser that has opened the sign-up page: its anonymous CSRF token. */
async function visit(browser: Browser): Promise<string> {
  const page = await browser.request('GET', '/register');
  assert.equal(page.status, 200);
  return page.body.csrfToken as string;
}

/** Signs up with `email` over JSON from a fresh browser. */
async function askSignUp(email: string, extra: Record<string, unknown> = {}) {
  const browser = new Browser(app.base);
  const csrf = await visit(browser);
  return browser.request('POST', '/register', { json: { email, ...extra }, headers: { 'x-csrf-token': csrf } });
}

/** The confirmation link a mail holds, as a path of this service. */
function linkOf(mail: ParsedMail): { path: string; token: string } {
  const found = /https:\/\/hooks\.example\.com(\/confirm-signup\?token=(app_sup_[\w-]{43}))/.exec(mail.text ?? '');
  assert.ok(found, mail.text);
  return { path: found[1], token: found[2] };
}

describe('sign-up confirmed by mail (auth.signupConfirm, on by default)', () => {
  it('a sign-up answers 202 with one body, byte for byte, for a new, a taken and a disabled email; nothing is made', async () => {
    const taken = await app.user({ role: 'member', owner: 'acme' });
    const disabled = await app.user({ role: 'member', owner: 'acme' });
    await setUserDisabled(app.accounts, OPERATOR, disabled.id, true);
    const fresh = freshEmail();
    const before = (await app.db.sql`select count(*)::int as n from app_users`)[0].n;
    const answers = [
      await askSignUp(fresh, { name: 'New Person' }),
      await askSignUp(taken.email, { name: 'New Person' }),
      await askSignUp(disabled.email, { name: 'New Person' }),
    ];
    for (const answer of answers) {
      assert.equal(answer.status, 202, answer.text);
      assert.equal(answer.headers.get('cache-control'), 'no-store');
    }
    assert.equal(answers[1].text, answers[0].text, 'a taken email: the same bytes');
    assert.equal(answers[2].text, answers[0].text, "a disabled user's email: the same bytes");
    assert.ok(!answers[0].headers.has('set-cookie'), 'no session');
    const mails = [await mailbox.next(), await mailbox.next()];
    assert.equal(mails.find((mail) => recipient(mail) === fresh)?.subject, 'Confirm your sign-up');
    assert.equal(
      mails.find((mail) => recipient(mail) === taken.email)?.subject,
      'Someone tried to sign up with your email',
    );
    assert.equal((await app.db.sql`select count(*)::int as n from app_users`)[0].n, before, 'no account was made');
  });

  it('browsers get a "check your mail" page, the same for a new and a taken email but for its CSRF tokens', async () => {
    const taken = await app.user({ role: 'member', owner: 'acme' });
    const pages = [];
    for (const email of [freshEmail(), taken.email]) {
      const browser = new Browser(app.base);
      const form = await browser.request('GET', '/register', { html: true });
      assert.doesNotMatch(form.text, /name="password"/, 'the password is chosen on the link’s page');
      const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)?.[1] as string;
      const sent = await browser.request('POST', '/register', { form: { _csrf: csrf, email, name: 'Someone' } });
      assert.equal(sent.status, 202, sent.text);
      assert.match(sent.text, /Check your mail/);
      pages.push(sent.text.replace(/content="[^"]+"/g, 'content="…"'));
    }
    assert.equal(pages[1], pages[0]);
    await mailbox.next();
    await mailbox.next();
  });

  it('input refused without the database is still refused at once: 422 for an email no account could have', async () => {
    const answer = await askSignUp('not an email');
    assert.equal(answer.status, 422);
    assert.equal(answer.body.code, 'APP_USER_FIELD_INVALID');
  });

  it('the link makes exactly one account, a member of a tenant of its own, and signs it in; a second use is refused', async () => {
    const email = freshEmail();
    const browser = new Browser(app.base);
    const csrf = await visit(browser);
    await browser.request('POST', '/register', {
      json: { email, name: 'Ada' },
      headers: { 'x-csrf-token': csrf },
    });
    const { path, token } = linkOf(await mailbox.next());
    const followed = await browser.request('GET', path, { html: true });
    assert.equal(followed.status, 303, 'the link leaves the address bar at once');
    assert.equal(followed.headers.get('location'), '/confirm-signup');
    const page = await browser.request('GET', '/confirm-signup', { html: true });
    assert.ok(!page.text.includes(token), 'the page does not carry the token');
    assert.ok(page.text.includes(`autocomplete="username" value="${email}" readonly`), 'it names the account');
    const formCsrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] as string;
    const weak = await browser.request('POST', '/confirm-signup', { form: { _csrf: formCsrf, password: 'short' } });
    assert.equal(weak.status, 422);
    assert.equal(await usersWith(email), 0, 'a refused password makes nothing and leaves the link working');
    const confirmed = await browser.request('POST', '/confirm-signup', {
      form: { _csrf: formCsrf, password: NEW_PASSWORD, name: 'Ada' },
    });
    assert.equal(confirmed.status, 303, confirmed.text);
    assert.equal(confirmed.headers.get('location'), '/');
    assert.ok(!browser.cookies.has('app_link'), 'the spent token is no longer kept');
    const me = await browser.request('GET', '/login');
    assert.equal(me.body.user.email, email, 'signed in');
    assert.equal(me.body.user.role, 'member');
    assert.equal(me.body.user.owner, me.body.user.id, 'a tenant of its own');
    assert.equal(await usersWith(email), 1);
    const [{ name }] = await app.db.sql`select name from app_users where email = ${email}`;
    assert.equal(name, 'Ada', 'with the name posted on the link’s page');
    await new Browser(app.base).signIn(email, NEW_PASSWORD);

    const again = await new Browser(app.base).request('GET', `/confirm-signup?token=${token}`);
    assert.equal(again.body.data.email, null, 'a spent link names no account');
    assert.equal(again.body.data.requestedName, null, 'nor the name asked');
    const other = new Browser(app.base);
    const otherCsrf = (await other.request('GET', '/confirm-signup')).body.csrfToken;
    const second = await other.request('POST', '/confirm-signup', {
      json: { token, password: 'another long passphrase' },
      headers: { 'x-csrf-token': otherCsrf },
    });
    assert.equal(second.status, 422);
    assert.equal(second.body.code, 'APP_SIGNUP_LINK_INVALID');
    assert.equal(await usersWith(email), 1, 'no second account');
  });

  it("the mailbox's holder chooses the name: the page prefills the name asked, in a labelled field marked as asked", async () => {
    const email = freshEmail();
    assert.equal((await askSignUp(email, { name: 'Operator <Support>' })).status, 202);
    const { path } = linkOf(await mailbox.next());
    const browser = new Browser(app.base);
    await browser.request('GET', path, { html: true });
    const page = await browser.request('GET', '/confirm-signup', { html: true });
    assert.match(
      page.text,
      /<label>Name \(the sign-up asked for “Operator &lt;Support&gt;”: keep it, change it or clear it\) <input id="name" type="text" name="name" autocomplete="name" value="Operator &lt;Support&gt;"><\/label>/,
      'the field is labelled, says the name was asked, and is prefilled with it (escaped)',
    );
    const formCsrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] as string;
    const confirmed = await browser.request('POST', '/confirm-signup', {
      form: { _csrf: formCsrf, password: NEW_PASSWORD, name: 'Grace' },
    });
    assert.equal(confirmed.status, 303, confirmed.text);
    const [{ name }] = await app.db.sql`select name from app_users where email = ${email}`;
    assert.equal(name, 'Grace', "the confirmer's name, not the requester's");
  });

  it('a JSON confirmation that omits the name makes an account without one; the page object shows the name asked', async () => {
    const email = freshEmail();
    assert.equal((await askSignUp(email, { name: 'Site Operator' })).status, 202);
    const { token } = linkOf(await mailbox.next());
    const browser = new Browser(app.base);
    const page = await browser.request('GET', `/confirm-signup?token=${token}`);
    assert.equal(page.body.data.email, email);
    assert.equal(page.body.data.requestedName, 'Site Operator', 'the link’s holder is shown what was asked');
    assert.equal(page.body.data.name, 'Site Operator', 'as the field’s value');
    const confirmed = await browser.request('POST', '/confirm-signup', {
      json: { token, password: NEW_PASSWORD },
      headers: { 'x-csrf-token': page.body.csrfToken },
    });
    assert.equal(confirmed.status, 201, confirmed.text);
    assert.equal(confirmed.body.user.email, email);
    const [{ name }] = await app.db.sql`select name from app_users where email = ${email}`;
    assert.equal(name, null, 'no name: the requester does not choose it');
  });

  it('an invalid name is 422 APP_USER_FIELD_INVALID, makes nothing and leaves the link usable', async () => {
    const email = freshEmail();
    assert.equal((await askSignUp(email)).status, 202);
    const { path, token } = linkOf(await mailbox.next());
    const browser = new Browser(app.base);
    await browser.request('GET', path, { html: true });
    const formCsrf = /name="_csrf" value="([^"]+)"/.exec(
      (await browser.request('GET', '/confirm-signup', { html: true })).text,
    )?.[1] as string;
    const refused = await browser.request('POST', '/confirm-signup', {
      form: { _csrf: formCsrf, password: NEW_PASSWORD, name: 'x'.repeat(1000) },
    });
    assert.equal(refused.status, 422);
    assert.match(refused.text, /<input id="name" type="text" name="name" aria-invalid="true"/, 'the field is marked');
    const json = await browser.request('POST', '/confirm-signup', {
      json: { token, password: NEW_PASSWORD, name: 'bell\u0007' },
      headers: { 'x-csrf-token': formCsrf },
    });
    assert.equal(json.status, 422, json.text);
    assert.equal(json.body.code, 'APP_USER_FIELD_INVALID');
    assert.equal(await usersWith(email), 0, 'nothing was made');
    assert.equal((await pendingSignUp(app.accounts, token))?.email, email, 'the link still works');
    const confirmed = await browser.request('POST', '/confirm-signup', {
      form: { _csrf: formCsrf, password: NEW_PASSWORD, name: '  ' },
    });
    assert.equal(confirmed.status, 303, confirmed.text);
    const [{ name }] = await app.db.sql`select name from app_users where email = ${email}`;
    assert.equal(name, null, 'an empty name: none');
  });

  it('two uses of one link at once make one account', async () => {
    const email = freshEmail();
    assert.equal(await askSignUp(email).then((answer) => answer.status), 202);
    const { token } = linkOf(await mailbox.next());
    const outcomes = await Promise.allSettled(
      Array.from({ length: 4 }, () => completeSignUp(app.accounts, token, { password: NEW_PASSWORD })),
    );
    assert.equal(outcomes.filter((outcome) => outcome.status === 'fulfilled').length, 1);
    for (const outcome of outcomes)
      if (outcome.status === 'rejected') assert.equal(outcome.reason.code, 'APP_SIGNUP_LINK_INVALID');
    assert.equal(await usersWith(email), 1);
  });

  it('an expired link is refused and makes nothing', async () => {
    const email = freshEmail();
    await askSignUp(email);
    const { token } = linkOf(await mailbox.next());
    const later = { ...app.accounts, now: () => Date.now() + app.accounts.config.auth.resetTtl + 1 };
    assert.equal(await pendingSignUp(later, token), null);
    await assert.rejects(completeSignUp(later, token, { password: NEW_PASSWORD }), { code: 'APP_SIGNUP_LINK_INVALID' });
    assert.equal(await usersWith(email), 0);
    assert.equal((await pendingSignUp(app.accounts, token))?.email, email, 'the same link works before it expires');
  });

  it('a taken email is mailed a notice naming the sign-in and reset pages; no second account, no change', async () => {
    const user = await app.user({ role: 'member', owner: 'acme' });
    assert.equal((await askSignUp(user.email.toUpperCase(), { name: 'Intruder' })).status, 202);
    const mail = await mailbox.next();
    assert.equal(recipient(mail), user.email, "to the account's own spelling of the address");
    assert.equal(mail.subject, 'Someone tried to sign up with your email');
    assert.match(mail.text ?? '', /https:\/\/hooks\.example\.com\/login/);
    assert.match(mail.text ?? '', /https:\/\/hooks\.example\.com\/forgot-password/);
    assert.doesNotMatch(mail.text ?? '', /token=/, 'no link that makes anything');
    assert.equal(await usersWith(user.email), 1);
    await new Browser(app.base).signIn(user.email, PASSWORD);
  });

  it('the answer does not wait for the lookup or the link: its time says nothing of whether the email is taken', async () => {
    const browser = new Browser(app.base);
    const csrf = await visit(browser);
    const email = freshEmail();
    // no sign-up request can be written while this lock is held: an answer that waited for it would hang
    const lock = await lockTable(app.db.url, 'app_signup_requests');
    try {
      const answer = await Promise.race([
        browser.request('POST', '/register', { json: { email }, headers: { 'x-csrf-token': csrf } }),
        new Promise<undefined>((resolve) => setTimeout(resolve, 3000, undefined)),
      ]);
      assert.equal(answer?.status, 202, 'answered while the request could not be written');
    } finally {
      await lock.release();
    }
    assert.equal(recipient(await mailbox.next()), email, 'the link is made and mailed after the answer');
  });

  it('one email is sent at most SIGNUP_MAILS_PER_TTL sign-up mails within auth.resetTtl, however many ask', async () => {
    const quiet = { ...app.accounts, mailer: undefined }; // the requests are counted; no mail queues up for the other tests
    const email = freshEmail();
    const asked = await Promise.all(
      Array.from({ length: SIGNUP_MAILS_PER_TTL + 2 }, () => requestSignUp(quiet, { email, name: null }, app.base)),
    );
    assert.equal(asked.filter((outcome) => outcome === 'mailed').length, SIGNUP_MAILS_PER_TTL);
    assert.equal(asked.filter((outcome) => outcome === 'too-many').length, 2);
    const taken = await app.user({ role: 'member', owner: 'acme' });
    const notices = [];
    for (let i = 0; i <= SIGNUP_MAILS_PER_TTL; i++)
      notices.push(await requestSignUp(quiet, { email: taken.email, name: null }, app.base));
    assert.deepEqual(notices, [...Array(SIGNUP_MAILS_PER_TTL).fill('taken'), 'too-many'], 'notices count alike');
    const later = { ...quiet, now: () => Date.now() + app.accounts.config.auth.resetTtl + 1 };
    assert.equal(await requestSignUp(later, { email, name: null }, app.base), 'mailed');
  });

  it("no mail is built on the asker's Host header in production: without publicUrl nothing is made or mailed", async () => {
    const production = {
      ...app.accounts,
      config: { ...app.accounts.config, env: 'production' as const, publicUrl: null },
    };
    const email = freshEmail();
    assert.equal(await requestSignUp(production, { email, name: null }, 'http://evil.example'), 'no-public-url');
    assert.equal((await app.db.sql`select count(*)::int as n from app_signup_requests where email = ${email}`)[0].n, 0);
  });
});

describe('sign-up without confirmation (auth.signupConfirm: false)', () => {
  it('makes the account at once and signs it in (201), and refuses a taken email with 409 APP_USER_EMAIL_TAKEN', async () => {
    const open = await startAccounts({ auth: { lockout: false, signup: true, signupConfirm: false } });
    const browser = new Browser(open.base);
    const csrf = (await browser.request('GET', '/register')).body.csrfToken;
    const email = freshEmail();
    const made = await browser.request('POST', '/register', {
      json: { email, password: NEW_PASSWORD },
      headers: { 'x-csrf-token': csrf },
    });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.user.email, email);
    const other = new Browser(open.base);
    const otherCsrf = (await other.request('GET', '/register')).body.csrfToken;
    const taken = await other.request('POST', '/signup', {
      json: { email, password: NEW_PASSWORD },
      headers: { 'x-csrf-token': otherCsrf },
    });
    assert.equal(taken.status, 409);
    assert.equal(taken.body.code, 'APP_USER_EMAIL_TAKEN');
  });
});

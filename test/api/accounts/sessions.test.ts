import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createWebServer, type WebServer } from '../../../api/server.ts';
import { setUserDisabled } from '../../../shared/accounts/users.ts';
import { Browser, PASSWORD, startAccounts } from './helpers.ts';
import { OPERATOR } from '../../../shared/access/actor.ts';

let clock = Date.parse('2026-11-25T10:00:00Z');
const now = () => clock;
const flags = { auth: { lockout: false, session: { idle: '30m', absolute: '8h' } } };
const app = await startAccounts(flags, { now });

const others: WebServer[] = [];
after(async () => {
  for (const web of others) await web.shutdown('test');
});

/** Another web process over the same database, with the same clock. */
async function anotherProcess(): Promise<{ web: WebServer; base: string }> {
  const web = createWebServer({
    config: app.db.configWith({ ...flags, rateLimit: { auth: { max: 100_000 } } }),
    log: app.db.log,
    now,
  });
  others.push(web);
  return { web, base: `http://127.0.0.1:${(await web.start(0)).port}` };
}

const status = async (browser: Browser, base?: string) => {
  const client = base ? Object.assign(new Browser(base), { cookies: browser.cookies }) : browser;
  return (await client.request('GET', '/api/v1/webhooks')).status;
};

describe('sessions live in PostgreSQL', () => {
  it('a session made by one web process is honoured by another, and survives a restart of both', async () => {
    const user = await app.user();
    const browser = new Browser(app.base);
    await browser.signIn(user.email);
    const second = await anotherProcess();
    assert.equal(await status(browser, second.base), 200);
    await second.web.shutdown('test');
    const third = await anotherProcess();
    assert.equal(await status(browser, third.base), 200, 'a new process still knows the session');
  });

  it('idle expiry: unused for auth.session.idle, the session has ended (controlled clock)', async () => {
    const user = await app.user();
    const browser = new Browser(app.base);
    await browser.signIn(user.email);
    clock += 29 * 60_000;
    assert.equal(await status(browser), 200, 'used within the idle time: still alive, and the use is recorded');
    clock += 29 * 60_000;
    assert.equal(await status(browser), 200, 'idle time counts from the last use');
    clock += 31 * 60_000;
    assert.equal(await status(browser), 401, 'idle for longer than auth.session.idle');
  });

  it('absolute expiry: auth.session.absolute after sign-in, however much it is used', async () => {
    const user = await app.user();
    const browser = new Browser(app.base);
    await browser.signIn(user.email);
    for (let hour = 0; hour < 7; hour++) {
      clock += 25 * 60_000;
      assert.equal(await status(browser), 200);
    }
    clock += 8 * 3_600_000 - 7 * 25 * 60_000;
    assert.equal(await status(browser), 401);
  });

  it('a password change ends every other session of the user, and renews the one that changed it', async () => {
    const user = await app.user();
    const laptop = new Browser(app.base);
    const phone = new Browser(app.base);
    const token = await laptop.signIn(user.email);
    await phone.signIn(user.email);
    const weak = await laptop.request('POST', '/password', {
      json: { currentPassword: PASSWORD, newPassword: 'password123' },
      headers: { 'x-csrf-token': token },
    });
    assert.equal(weak.status, 422);
    assert.equal(weak.body.code, 'APP_PASSWORD_WEAK');
    const wrong = await laptop.request('POST', '/password', {
      json: { currentPassword: 'not it at all', newPassword: 'another long passphrase' },
      headers: { 'x-csrf-token': token },
    });
    assert.equal(wrong.status, 401);
    assert.equal(await status(phone), 200, 'refused changes end nothing');
    // a copy of the laptop's cookie taken before the change (whoever the new password should keep out)
    const copy = Object.assign(new Browser(app.base), { cookies: new Map(laptop.cookies) });
    const ids = async () =>
      (await app.db.sql<{ id: string }[]>`select id from app_sessions where user_id = ${user.id} order by id`).map(
        (row) => row.id,
      );
    const earlier = await ids();
    assert.equal(earlier.length, 2);
    const changed = await laptop.request('POST', '/password', {
      json: { currentPassword: PASSWORD, newPassword: 'another long passphrase' },
      headers: { 'x-csrf-token': token },
    });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.user.id, user.id);
    assert.notEqual(laptop.cookies.get('app_session'), copy.cookies.get('app_session'), 'a new cookie is sent');
    assert.match(changed.headers.get('cache-control') ?? '', /no-store/);
    const later = await ids();
    assert.equal(later.length, 1, 'one session of the user is left: the renewed one');
    assert.ok(!earlier.includes(later[0] as string), 'with a new id');
    assert.equal(await status(laptop), 200, 'the new cookie works');
    assert.equal(await status(copy), 401, 'the old cookie is refused');
    assert.equal(await status(phone), 401);
    // the CSRF secret is the new session's: the old token is refused, the answer's token works
    assert.equal(typeof changed.body.csrfToken, 'string');
    const stale = await laptop.request('POST', '/logout', { headers: { 'x-csrf-token': token } });
    assert.equal(stale.status, 403);
    assert.equal(stale.body.code, 'APP_CSRF_INVALID');
    assert.equal(
      (await laptop.request('POST', '/logout', { headers: { 'x-csrf-token': changed.body.csrfToken } })).status,
      204,
    );
    assert.equal(await status(laptop), 401, 'signed out with the new token');
    assert.equal(
      (await new Browser(app.base).request('POST', '/login', { json: { email: user.email, password: PASSWORD } }))
        .status,
      401,
      'the old password no longer works',
    );
    await new Browser(app.base).signIn(user.email, 'another long passphrase');
  });

  it('a password changed through the form: the page that answers is made from the renewed session', async () => {
    const user = await app.user();
    const browser = new Browser(app.base);
    await browser.signIn(user.email);
    const form = await browser.request('GET', '/password', { html: true });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.text)?.[1] as string;
    const old = browser.cookies.get('app_session');
    const changed = await browser.request('POST', '/password', {
      form: { _csrf: csrf, currentPassword: PASSWORD, newPassword: 'a form changed passphrase' },
    });
    assert.equal(changed.status, 200, changed.text);
    assert.match(changed.text, /Your password is changed/);
    assert.notEqual(browser.cookies.get('app_session'), old);
    // the sign-out form of the page answered: its token is the new session's
    const token = /action="\/logout"[^>]*>\s*<input type="hidden" name="_csrf" value="([^"]+)"/.exec(changed.text)?.[1];
    assert.ok(token, 'the page has a sign-out form');
    const stale = Object.assign(new Browser(app.base), { cookies: new Map([['app_session', old as string]]) });
    assert.equal(await status(stale), 401, 'the old cookie is refused');
    const out = await browser.request('POST', '/logout', { form: { _csrf: token } });
    assert.equal(out.status, 303, out.text);
    assert.equal(await status(browser), 401);
  });

  it('disabling a user ends its sessions at once, and it cannot sign in', async () => {
    const user = await app.user();
    const browser = new Browser(app.base);
    await browser.signIn(user.email);
    await setUserDisabled(app.accounts, OPERATOR, user.id, true);
    assert.equal(await status(browser), 401);
    const again = await new Browser(app.base).request('POST', '/login', {
      json: { email: user.email, password: PASSWORD },
    });
    assert.equal(again.status, 401);
    assert.equal(again.body.code, 'APP_AUTH_FAILED');
  });

  it('POST /password without a session is 401 APP_UNAUTHENTICATED', async () => {
    const answer = await new Browser(app.base).request('POST', '/password', {
      json: { currentPassword: 'x', newPassword: 'y' },
    });
    assert.equal(answer.status, 401);
    assert.equal(answer.body.code, 'APP_UNAUTHENTICATED');
  });
});

describe('ended sessions are pruned', () => {
  it('pruneSessions removes the rows of sessions past their idle or absolute expiry, and only those', async () => {
    const { pruneSessions } = await import('../../../shared/accounts/sessions.ts');
    const idle = await app.user();
    const live = await app.user();
    const idleBrowser = new Browser(app.base);
    await idleBrowser.signIn(idle.email);
    clock += 31 * 60_000;
    const liveBrowser = new Browser(app.base);
    await liveBrowser.signIn(live.email);
    const removed = await pruneSessions({ ...app.accounts, now });
    assert.ok(removed >= 1);
    const rows = await app.db.sql<
      { user_id: string }[]
    >`select user_id from app_sessions where user_id in (${idle.id}, ${live.id})`;
    assert.deepEqual(
      rows.map((row) => row.user_id),
      [live.id],
    );
    assert.equal(await status(liveBrowser), 200);
  });
});

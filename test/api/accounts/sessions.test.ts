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

  it('a password change ends every other session of the user, not the one that changed it', async () => {
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
    const changed = await laptop.request('POST', '/password', {
      json: { currentPassword: PASSWORD, newPassword: 'another long passphrase' },
      headers: { 'x-csrf-token': token },
    });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(await status(laptop), 200);
    assert.equal(await status(phone), 401);
    assert.equal(
      (await new Browser(app.base).request('POST', '/login', { json: { email: user.email, password: PASSWORD } }))
        .status,
      401,
      'the old password no longer works',
    );
    await new Browser(app.base).signIn(user.email, 'another long passphrase');
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

import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createWebServer, type WebServer } from '../../../api/server.ts';
import { Browser, PASSWORD, startAccounts } from './helpers.ts';

let clock = Date.parse('2026-11-25T10:00:00Z');
const now = () => clock;
// counted in the shared backend (PostgreSQL here), which every web process reads by the same clock
const flags = { shared: { backend: 'postgres' }, auth: { lockout: { attempts: 3, window: '15m', duration: '15m' } } };
const app = await startAccounts(flags, { now });

const others: WebServer[] = [];
after(async () => {
  for (const web of others) await web.shutdown('test');
});

async function anotherProcess(): Promise<string> {
  const web = createWebServer({
    config: app.db.configWith({ ...flags, rateLimit: { auth: { max: 100_000 } } }),
    log: app.db.log,
    now,
  });
  others.push(web);
  return `http://127.0.0.1:${(await web.start(0)).port}`;
}

const signIn = (base: string, email: string, password: string) =>
  new Browser(base).request('POST', '/login', { json: { email, password } });

describe('sign-in lockout', () => {
  it('the attempts-th wrong password within the window locks the account: 429 APP_AUTH_LOCKED with Retry-After, even with the right password', async () => {
    const user = await app.user();
    assert.equal((await signIn(app.base, user.email, 'wrong password 1')).status, 401);
    assert.equal((await signIn(app.base, user.email, 'wrong password 2')).status, 401);
    const third = await signIn(app.base, user.email, 'wrong password 3');
    assert.equal(third.status, 429);
    assert.equal(third.body.code, 'APP_AUTH_LOCKED');
    assert.equal(third.headers.get('retry-after'), '900');
    const right = await signIn(app.base, user.email, PASSWORD);
    assert.equal(right.status, 429, 'the right password does not open a locked account');
    assert.equal(right.body.code, 'APP_AUTH_LOCKED');
  });

  it('the count and the lock are shared by two web processes', async () => {
    const user = await app.user();
    const other = await anotherProcess();
    assert.equal((await signIn(app.base, user.email, 'wrong one')).status, 401);
    assert.equal((await signIn(other, user.email, 'wrong two')).status, 401);
    assert.equal((await signIn(app.base, user.email, 'wrong three')).status, 429);
    assert.equal((await signIn(other, user.email, PASSWORD)).status, 429, 'the other process sees the lock');
  });

  it('the lock lifts after auth.lockout.duration (controlled clock); failures older than the window no longer count', async () => {
    const user = await app.user();
    for (const attempt of [1, 2, 3]) await signIn(app.base, user.email, `wrong ${attempt}`);
    clock += 14 * 60_000;
    assert.equal((await signIn(app.base, user.email, PASSWORD)).status, 429);
    clock += 61_000;
    assert.equal((await signIn(app.base, user.email, PASSWORD)).status, 200, 'lifted after 15 minutes');
    await signIn(app.base, user.email, 'wrong a');
    await signIn(app.base, user.email, 'wrong b');
    clock += 16 * 60_000;
    assert.equal((await signIn(app.base, user.email, 'wrong c')).status, 401, 'the first two fell out of the window');
  });

  it('a successful sign-in clears the count', async () => {
    const user = await app.user();
    await signIn(app.base, user.email, 'wrong a');
    await signIn(app.base, user.email, 'wrong b');
    assert.equal((await signIn(app.base, user.email, PASSWORD)).status, 200);
    assert.equal((await signIn(app.base, user.email, 'wrong c')).status, 401);
    assert.equal((await signIn(app.base, user.email, 'wrong d')).status, 401);
  });

  it('a password reset lifts the lock', async () => {
    const user = await app.user();
    for (const attempt of [1, 2, 3]) await signIn(app.base, user.email, `wrong ${attempt}`);
    const { createPasswordLink, completePasswordLink } = await import('../../../shared/accounts/password-links.ts');
    const deps = app.web.accounts;
    const { token } = await createPasswordLink(deps, user.id, 'reset');
    await completePasswordLink(deps, token, 'a fresh long passphrase');
    assert.equal((await signIn(app.base, user.email, 'a fresh long passphrase')).status, 200);
  });

  it('the spellings of one email (any case, fullwidth letters, NFKC forms) reach one account and count toward its one lock', async () => {
    const user = await app.user({ email: `spelt-${Math.random().toString(36).slice(2, 8)}@example.com` });
    const [local, domain] = user.email.split('@');
    const fullwidth = [...local].map((c) => String.fromCodePoint(c.codePointAt(0)! + 0xfee0)).join('');
    const signedIn = await signIn(app.base, `${fullwidth}@${domain.toUpperCase()}`, PASSWORD);
    assert.equal(signedIn.status, 200, signedIn.text);
    assert.equal(signedIn.body.user.id, user.id, 'the fullwidth spelling signs in to the account');
    assert.equal((await signIn(app.base, `${fullwidth}@${domain}`, 'wrong 1')).status, 401);
    assert.equal((await signIn(app.base, `  ${local.toUpperCase()}@${domain} `, 'wrong 2')).status, 401);
    const third = await signIn(app.base, `${local}\uff20${domain}`, 'wrong 3'); // a fullwidth at sign
    assert.equal(third.status, 429, 'three spellings, one account: locked');
    assert.equal((await signIn(app.base, user.email, PASSWORD)).status, 429);
  });

  it('an email nobody has locks the same way (a lock never tells which emails exist)', async () => {
    for (const attempt of [1, 2])
      assert.equal((await signIn(app.base, 'ghost@example.com', `wrong ${attempt}`)).status, 401);
    assert.equal((await signIn(app.base, 'ghost@example.com', 'wrong 3')).status, 429);
  });
});

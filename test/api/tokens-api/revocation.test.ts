/**
 * A revoked API token in two web processes on one database, each keeping the tokens it has
 * looked up (shared/tokens/cache.ts, `auth.tokenCache`): the process that revokes refuses the
 * token at once, the other as soon as the revocation's notice reaches it, its clock standing
 * still (so no expiry of its cache explains it); and when a notice is lost, the other process
 * trusts the token no longer than `auth.tokenCache` after it read it, on its own clock. Notices
 * are awaited through the caches' `onForget`, never slept for.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createWebServer, type WebServer } from '../../../api/server.ts';
import { OPERATOR } from '../../../shared/access/actor.ts';
import { createUser, setUserDisabled } from '../../../shared/accounts/users.ts';
import type { TokenCache } from '../../../shared/tokens/cache.ts';
import { createToken } from '../../../shared/tokens/tokens.ts';
import { serveWeb } from '../../helpers/web.ts';

const first = await serveWeb();
const { db } = first;
// the second web process: same database, a clock of its own that only the test moves
const clock = { now: Date.now() };
const second = createWebServer({ config: db.configWith({}), log: db.log, now: () => clock.now });
const processes = [
  { name: 'first', web: first.web, base: first.base },
  { name: 'second', web: second, base: `http://127.0.0.1:${(await second.start(0)).port}` },
];
const [one, two] = processes;
const cacheOf = (web: WebServer): TokenCache => {
  assert.ok(web.tokenCache, 'auth.tokenCache is on by default');
  return web.tokenCache;
};
for (const { web } of processes) assert.equal(await cacheOf(web).listen(), true);

const tokenDeps = { sql: db.sql, log: db.log };
const admin = await createToken(tokenDeps, { name: 'revoker', role: 'admin' });

/** The status of a read with `token` through process `base`. */
const statusOf = async (base: string, token: string) =>
  (await fetch(`${base}/api/v1/deliveries?per_page=1`, { headers: { authorization: `Bearer ${token}` } })).status;

/** Resolves when `web`'s cache drops token `id` (or every token). */
const dropped = (web: WebServer, id: string) =>
  new Promise<void>((resolve) => {
    const off = cacheOf(web).onForget((ids) => {
      if (ids === undefined || ids.includes(id)) {
        off();
        resolve();
      }
    });
  });

describe('a revoked API token in two web processes', () => {
  after(() => second.shutdown('test')); // before the file's database is dropped
  it('is refused by the process that revoked it at once, and by the other when the notice arrives, its clock standing still', async () => {
    const token = await createToken(tokenDeps, { name: 'revoked over the API', role: 'admin' });
    for (const { base } of processes) assert.equal(await statusOf(base, token.token), 200);
    const noticed = dropped(two.web, token.id);
    const revoked = await fetch(`${one.base}/api/v1/tokens/${token.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${admin.token}` },
    });
    assert.equal(revoked.status, 200, await revoked.text());
    assert.equal(await statusOf(one.base, token.token), 401, 'the revoking process: at once');
    await noticed;
    assert.equal(
      await statusOf(two.base, token.token),
      401,
      'the other process: on the notice, without its clock moving',
    );
  });

  it("a disabled user's tokens: refused by the process that disabled it at once, by the other when the notices arrive", async () => {
    const user = await createUser(two.web.accounts, OPERATOR, {
      email: `revoked-${Date.now()}@example.com`,
      role: 'member',
      owner: 'acme',
      password: 'correct horse battery staple',
    });
    const token = await createToken(
      tokenDeps,
      { name: "a user's", role: 'member', owner: 'acme' },
      { userId: user.id },
    );
    for (const { base } of processes) assert.equal(await statusOf(base, token.token), 200);
    const noticed = dropped(one.web, token.id);
    await setUserDisabled(two.web.accounts, OPERATOR, user.id, true);
    assert.equal(await statusOf(two.base, token.token), 401, 'the disabling process: at once');
    await noticed;
    assert.equal(await statusOf(one.base, token.token), 401, 'the other process: on the notice');
  });

  it('a notice lost: the other process trusts the token no longer than auth.tokenCache after reading it', async () => {
    const bound = db.configWith({}).auth.tokenCache;
    const token = await createToken(tokenDeps, { name: 'notice lost', role: 'admin' });
    assert.equal(await statusOf(two.base, token.token), 200, 'read and kept by the second process');
    // revoked with the trigger off: no notice, as when a listening connection broke unnoticed
    await db.sql.begin(async (tx) => {
      await tx`alter table app_api_tokens disable trigger app_api_tokens_changed`;
      await tx`update app_api_tokens set revoked_at = now() where id = ${token.id}`;
      await tx`alter table app_api_tokens enable trigger app_api_tokens_changed`;
    });
    assert.equal(await statusOf(one.base, token.token), 401, 'a process that had not kept it reads it: refused');
    clock.now += bound - 1;
    assert.equal(await statusOf(two.base, token.token), 200, 'within the bound: still trusted');
    clock.now += 1;
    assert.equal(await statusOf(two.base, token.token), 401, 'at the bound: read again and refused');
  });
});

/**
 * A user disabled while its session mints a token: the mint was authenticated before the
 * disable and writes its token after the disable revoked the user's tokens. The token must not
 * outlive the disable (the mint either answers 401, or its token is revoked with the others),
 * and enabling the user again must not bring it back. The interleaving is held, not timed: the
 * mint's insert waits on a lock the test releases (test/helpers/insert-hold.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setUserDisabled } from '../../../shared/accounts/users.ts';
import { actorOf, OPERATOR } from '../../../shared/access/actor.ts';
import { mintToken } from '../../../shared/tokens/api-tokens.ts';
import { principalOfUser } from '../../../shared/tokens/principal.ts';
import { meanwhileInsert } from '../../helpers/insert-hold.ts';
import { Browser, startAccounts } from '../accounts/helpers.ts';

const app = await startAccounts();

/** The ids of user `id`'s tokens not revoked. */
async function liveTokens(id: string): Promise<string[]> {
  const rows = await app.db.sql<{ id: string }[]>`
    select id from app_api_tokens where user_id = ${id} and revoked_at is null`;
  return rows.map((row) => row.id);
}

describe('a user disabled while its session mints a token', () => {
  it('leaves no token that works, now or once the user is enabled again', async () => {
    const user = await app.user({ role: 'member', owner: 'acme' });
    const browser = new Browser(app.base);
    const csrf = await browser.signIn(user.email);
    // the session is valid when the mint starts; its insert is held while the user is disabled
    const answer = await meanwhileInsert(
      app.db.sql,
      'app_api_tokens',
      () => browser.request('POST', '/api/v1/tokens', { json: { name: 'ci' }, headers: { 'x-csrf-token': csrf } }),
      () => setUserDisabled(app.accounts, OPERATOR, user.id, true),
    );

    assert.ok(answer.status === 201 || answer.status === 401, `${answer.status} ${answer.text}`);
    if (answer.status === 401) assert.equal(answer.body.code, 'APP_UNAUTHENTICATED');
    assert.deepEqual(await liveTokens(user.id), [], 'no token of the disabled user is left unrevoked');
    if (answer.status === 201) {
      const used = await fetch(`${app.base}/api/v1/webhooks`, {
        headers: { authorization: `Bearer ${answer.body.token}` },
      });
      assert.equal(used.status, 401, 'the token minted as the user was disabled does not work');
    }
    await setUserDisabled(app.accounts, OPERATOR, user.id, false);
    assert.deepEqual(await liveTokens(user.id), [], 'enabling the user brings no token back');
  });

  it('a mint authenticated before the disable committed, writing after it: 401 APP_UNAUTHENTICATED, no token', async () => {
    const user = await app.user({ role: 'member', owner: 'acme' });
    // the actor its session gave the request while the user was enabled
    const actor = actorOf(principalOfUser(user, 'session-of-the-request'));
    await setUserDisabled(app.accounts, OPERATOR, user.id, true);
    await assert.rejects(mintToken({ sql: app.db.sql, log: app.db.log }, actor, { name: 'ci' }), {
      status: 401,
      code: 'APP_UNAUTHENTICATED',
    });
    assert.deepEqual(await liveTokens(user.id), []);
  });
});

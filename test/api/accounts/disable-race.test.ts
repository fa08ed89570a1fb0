/**
 * A user disabled while it signs in: the sign-in checked the user (enabled) and its password
 * before the disable, and starts its session after the disable ended the user's sessions. That session must not outlive the disable: once an admin enables
 * the user again, the cookie the racing request was given must not sign anyone in. The
 * interleaving is held, not timed: the session's insert waits on a lock the test releases
 * (test/helpers/insert-hold.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startSession } from '../../../shared/accounts/sessions.ts';
import { setUserDisabled } from '../../../shared/accounts/users.ts';
import { OPERATOR } from '../../../shared/access/actor.ts';
import { meanwhileInsert } from '../../helpers/insert-hold.ts';
import { type Answer, Browser, PASSWORD, startAccounts } from './helpers.ts';

const app = await startAccounts();

/**
 * Runs `request` (which starts a session for `userId`) with its session's insert held, disables
 * the user meanwhile, lets the insert go, and enables the user again; answers what `request` got.
 */
async function disabledDuring(userId: string, request: () => Promise<Answer>): Promise<Answer> {
  const answer = await meanwhileInsert(app.db.sql, 'app_sessions', request, () =>
    setUserDisabled(app.accounts, OPERATOR, userId, true),
  );
  await setUserDisabled(app.accounts, OPERATOR, userId, false);
  return answer;
}

/** Whether `browser`'s cookies sign it in. */
const signedIn = async (browser: Browser) => (await browser.request('GET', '/api/v1/tokens')).status === 200;

describe('a user disabled while it signs in', () => {
  it('the sign-in is refused with 401, or its session ends with the others', async () => {
    const user = await app.user({ role: 'member', owner: 'acme' });
    const browser = new Browser(app.base);
    const answer = await disabledDuring(user.id, () =>
      browser.request('POST', '/login', { json: { email: user.email, password: PASSWORD } }),
    );
    assert.ok(answer.status === 200 || answer.status === 401, `${answer.status} ${answer.text}`);
    if (answer.status === 401) assert.equal(answer.body.code, 'APP_AUTH_FAILED');
    assert.equal(await signedIn(browser), false, 'the cookie of the racing sign-in signs nobody in');
  });

  it('a session started once the disable has committed: 401 APP_AUTH_FAILED, no session', async () => {
    const user = await app.user({ role: 'member', owner: 'acme' });
    // the sign-in checked the user and its password before this disable
    await setUserDisabled(app.accounts, OPERATOR, user.id, true);
    await assert.rejects(startSession(app.accounts, user.id), { status: 401, code: 'APP_AUTH_FAILED' });
    const [{ n }] = await app.db.sql<{ n: number }[]>`
      select count(*)::int as n from app_sessions where user_id = ${user.id}`;
    assert.equal(n, 0);
  });
});

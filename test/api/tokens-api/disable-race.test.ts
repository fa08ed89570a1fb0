/**
 * A user disabled while its session mints a token: the mint was authenticated before the
 * disable and writes its token after the disable revoked the user's tokens. The token must not
 * outlive the disable (the mint either answers 401, or its token is revoked with the others),
 * and enabling the user again must not bring it back. The interleaving is held, not timed: a
 * trigger of the test's own holds the mint's insert on an advisory lock the test releases.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { setUserDisabled } from '../../../shared/accounts/users.ts';
import { transaction } from '../../../shared/db/transaction.ts';
import { actorOf, OPERATOR } from '../../../shared/access/actor.ts';
import { mintToken } from '../../../shared/tokens/api-tokens.ts';
import { principalOfUser } from '../../../shared/tokens/principal.ts';
import { eventually } from '../../helpers/poll.ts';
import { Browser, startAccounts } from '../accounts/helpers.ts';

const app = await startAccounts();
const HOLD = 727_001;

/** Backends of this database waiting for `what` ('advisory', or a row lock: 'transactionid' / 'tuple'). */
async function waiting(what: string[]): Promise<number> {
  const [{ n }] = await app.db.sql<{ n: number }[]>`
    select count(*)::int as n from pg_stat_activity
     where datname = current_database() and wait_event_type = 'Lock' and wait_event = any(${what})`;
  return n;
}

/** The ids of user `id`'s tokens not revoked. */
async function liveTokens(id: string): Promise<string[]> {
  const rows = await app.db.sql<{ id: string }[]>`
    select id from app_api_tokens where user_id = ${id} and revoked_at is null`;
  return rows.map((row) => row.id);
}

describe('a user disabled while its session mints a token', () => {
  after(async () => {
    await app.db.sql`drop trigger if exists test_hold_mint on app_api_tokens`;
  });

  it('leaves no token that works, now or once the user is enabled again', async () => {
    const user = await app.user({ role: 'member', owner: 'acme' });
    const browser = new Browser(app.base);
    const csrf = await browser.signIn(user.email);
    await app.db.sql.unsafe(`
      create or replace function test_hold_mint() returns trigger language plpgsql as $$
      begin perform pg_advisory_xact_lock(${HOLD}); return new; end $$;
      create trigger test_hold_mint before insert on app_api_tokens for each row execute function test_hold_mint();`);

    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let holding!: () => void;
    const held = new Promise<void>((resolve) => {
      holding = resolve;
    });
    const hold = transaction(app.db.sql, async (tx) => {
      await tx`select pg_advisory_xact_lock(${HOLD})`;
      holding();
      await released;
    });
    await held;

    // the session is valid when the mint starts; its insert waits on the test's lock
    const minted = browser.request('POST', '/api/v1/tokens', {
      json: { name: 'ci' },
      headers: { 'x-csrf-token': csrf },
    });
    await eventually(() => waiting(['advisory']), 10_000, 'the mint to wait at its insert');

    // the disable runs meanwhile: it finishes, or waits for the mint (never both waiting on the test)
    let disabled = false;
    const disabling = setUserDisabled(app.accounts, OPERATOR, user.id, true).then(() => {
      disabled = true;
    });
    await eventually(
      async () => disabled || (await waiting(['transactionid', 'tuple'])) > 0,
      10_000,
      'the disable to finish or wait for the mint',
    );
    release();
    await hold;
    const answer = await minted;
    await disabling;
    await app.db.sql`drop trigger test_hold_mint on app_api_tokens`;

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

/**
 * The session rules of the core: a password change ends every session of the user and starts
 * the changer's anew (a new id, cookie and CSRF secret); a session started in place of another
 * (`replacing`: sign-in, a portal link) ends that one.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { OPERATOR } from '../../../shared/access/actor.ts';
import { changePassword } from '../../../shared/accounts/account-flows.ts';
import type { AccountDeps } from '../../../shared/accounts/deps.ts';
import { resolveSession, startSession } from '../../../shared/accounts/sessions.ts';
import { createUser } from '../../../shared/accounts/users.ts';
import { createTestDatabase } from '../../helpers/database.ts';

const PASSWORD = 'correct horse battery staple';

describe('sessions across a change of credentials', () => {
  let deps: AccountDeps;
  before(async () => {
    const db = await createTestDatabase();
    deps = { config: db.config, sql: db.sql, log: db.log, now: Date.now };
  });

  it('changePassword ends every session of the user and answers a new one for the changer', async () => {
    const user = await createUser(deps, OPERATOR, { email: 'flows@example.com', role: 'admin', password: PASSWORD });
    const asking = await startSession(deps, user.id);
    const other = await startSession(deps, user.id);
    const changed = await changePassword(deps, user.id, {
      currentPassword: PASSWORD,
      newPassword: 'a renewed long passphrase',
    });
    assert.equal(changed.user.id, user.id);
    assert.equal(changed.session.userId, user.id);
    assert.notEqual(changed.session.id, asking.id);
    assert.notEqual(changed.session.cookie, asking.cookie);
    assert.notEqual(changed.session.csrfSecret, asking.csrfSecret);
    assert.equal(await resolveSession(deps, asking.cookie), undefined, 'the asking session ended');
    assert.equal(await resolveSession(deps, other.cookie), undefined);
    assert.equal((await resolveSession(deps, changed.session.cookie))?.session.id, changed.session.id);
  });

  it('a session started in place of another ends it', async () => {
    const user = await createUser(deps, OPERATOR, { email: 'replace@example.com', role: 'admin', password: PASSWORD });
    const first = await startSession(deps, user.id);
    const second = await startSession(deps, user.id, { replacing: first.id });
    assert.equal(await resolveSession(deps, first.cookie), undefined);
    assert.ok(await resolveSession(deps, second.cookie));
  });
});

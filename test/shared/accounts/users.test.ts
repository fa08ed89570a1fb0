/**
 * Emails name accounts in one canonical spelling (shared/accounts/user-fields.ts `canonicalEmail`):
 * a look-alike spelling of a user's email is taken, and finds that user.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { OPERATOR } from '../../../shared/access/actor.ts';
import type { AccountDeps } from '../../../shared/accounts/deps.ts';
import { createUser, findUser } from '../../../shared/accounts/users.ts';
import { isAppError } from '../../../shared/errors/app-error.ts';
import { createTestDatabase } from '../../helpers/database.ts';

const PASSWORD = 'correct horse battery staple';
const refusedWith = (code: string) => (error: unknown) => isAppError(error) && error.code === code;

describe('one account per email, whatever its spelling', () => {
  let deps: AccountDeps;
  before(async () => {
    const db = await createTestDatabase();
    deps = { config: db.config, sql: db.sql, log: db.log, now: Date.now };
  });

  it('an email in a look-alike spelling of a user’s (fullwidth, NFKC forms, any case) is taken: 409 APP_USER_EMAIL_TAKEN', async () => {
    const user = await createUser(deps, OPERATOR, { email: 'rene@example.com', role: 'admin', password: PASSWORD });
    for (const email of ['ＲＥＮＥ@example.com', 'rene＠ｅxample.com', 'Rene@Example.COM'])
      await assert.rejects(
        createUser(deps, OPERATOR, { email, role: 'admin', password: PASSWORD }),
        refusedWith('APP_USER_EMAIL_TAKEN'),
        email,
      );
    const accented = await createUser(deps, OPERATOR, {
      email: 're\u0301my@example.com',
      role: 'admin',
      password: PASSWORD,
    });
    assert.equal(accented.email, 'r\u00e9my@example.com', 'kept composed');
    await assert.rejects(
      createUser(deps, OPERATOR, { email: 'r\u00e9my@example.com', role: 'admin', password: PASSWORD }),
      refusedWith('APP_USER_EMAIL_TAKEN'),
    );
    assert.equal((await findUser(deps, 'ｒｅｎｅ@EXAMPLE.com')).id, user.id);
    assert.equal((await findUser(deps, 're\u0301my@example.com')).id, accented.id);
  });

  it('a user stored in another spelling before emails were canonical is still found by it', async () => {
    await deps.sql`
      insert into app_users (id, email, role, owner, created_at, updated_at)
      values ('usr_01JAAAAAAAAAAAAAAAAAAAAAAA', 'ｏｌｄ@example.com', 'admin', null, now(), now())`;
    assert.equal((await findUser(deps, 'ｏｌｄ@example.com')).id, 'usr_01JAAAAAAAAAAAAAAAAAAAAAAA');
  });
});

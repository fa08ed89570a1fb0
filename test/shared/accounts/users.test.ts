/**
 * Emails name accounts in one canonical spelling (shared/accounts/user-fields.ts `canonicalEmail`):
 * a look-alike spelling of a user's email is taken, and finds that user. The database holds the
 * key (`emailKey`: any case in any script) unique (migrations/038), and lookups go by it.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { OPERATOR } from '../../../shared/access/actor.ts';
import type { AccountDeps } from '../../../shared/accounts/deps.ts';
import { checkCredentials } from '../../../shared/accounts/sign-in.ts';
import { createUser, findUser, listUsers } from '../../../shared/accounts/users.ts';
import { isAppError } from '../../../shared/errors/app-error.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';

const PASSWORD = 'correct horse battery staple';
const refusedWith = (code: string) => (error: unknown) => isAppError(error) && error.code === code;

describe('one account per email, whatever its spelling', () => {
  let deps: AccountDeps;
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
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

  it('an email that differs from a user’s only in non-ASCII case (Ädmin, ädmin) is taken: 409 APP_USER_EMAIL_TAKEN', async () => {
    const user = await createUser(deps, OPERATOR, { email: 'Ädmin@example.com', role: 'admin', password: PASSWORD });
    for (const email of ['ädmin@example.com', 'ÄDMIN@EXAMPLE.COM', 'a\u0308dmin@example.com'])
      await assert.rejects(
        createUser(deps, OPERATOR, { email, role: 'admin', password: PASSWORD }),
        refusedWith('APP_USER_EMAIL_TAKEN'),
        email,
      );
    const [{ key }] = await deps.sql<{ key: string }[]>`select email_key as key from app_users where id = ${user.id}`;
    assert.equal(key, 'ädmin@example.com');
    await assert.rejects(
      deps.sql`
        insert into app_users (id, email, email_key, role, owner)
        values ('usr_01JBBBBBBBBBBBBBBBBBBBBBBB', 'ädmin@example.com', 'ädmin@example.com', 'admin', null)`,
      (error: { code?: string }) => error.code === '23505',
      'the database itself refuses a second row with the key',
    );
  });

  it('sign-in with any case of the email, in any script, finds the one user', async () => {
    const user = await createUser(deps, OPERATOR, { email: 'Σοφία@example.com', role: 'admin', password: PASSWORD });
    for (const email of ['Σοφία@example.com', 'σοφία@example.com', 'ΣΟΦΊΑ@EXAMPLE.COM', 'σοφι\u0301α@example.com']) {
      assert.equal((await checkCredentials(deps, { email, password: PASSWORD })).id, user.id, email);
      assert.equal((await findUser(deps, email)).id, user.id, email);
    }
  });

  it('the listing’s email filter matches in any case in any script', async () => {
    const user = await createUser(deps, OPERATOR, { email: 'ÉMILE@example.com', role: 'admin' });
    const { records } = await listUsers(db, OPERATOR, { page: 1, perPage: 10, email: 'émile@' });
    assert.deepEqual(
      records.map((record) => record.id),
      [user.id],
    );
  });
});

/**
 * Users' email keys in the database (migrations/038, shared/accounts/email-keys.ts): a database
 * holding users whose emails have one key migrates without failing, the user created first holds
 * the key, each other keeps its row and its own spelling and is named in a warning while enabled;
 * keys SQL got wrong (a server without ICU) are rewritten as the application computes them; a
 * user the release before inserts during a deploy gets its key from the trigger.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { OPERATOR } from '../../../shared/access/actor.ts';
import type { AccountDeps } from '../../../shared/accounts/deps.ts';
import { keyUserEmails } from '../../../shared/accounts/email-keys.ts';
import { createUser, findUser, setUserDisabled } from '../../../shared/accounts/users.ts';
import { isAppError } from '../../../shared/errors/app-error.ts';
import { MIGRATIONS_DIR, migrate } from '../../../shared/db/migrate.ts';
import type { Config } from '../../../shared/config/index.ts';
import { createLogger } from '../../../shared/log/logger.ts';
import { type AuditFacts, auditConfig } from '../../../shared/security/audit.ts';
import { databaseFacts } from '../../../shared/security/audit-facts.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { linesInto } from '../../helpers/logs.ts';

const taken = (error: unknown) => isAppError(error) && error.code === 'APP_USER_EMAIL_TAKEN';

/** A folder holding the project's migrations numbered below `number`. */
async function migrationsBefore(number: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'migrations-before-'));
  for (const name of await readdir(MIGRATIONS_DIR))
    if (/^\d+_/.test(name) && Number.parseInt(name, 10) < number)
      await symlink(join(MIGRATIONS_DIR, name), join(dir, name));
  return dir;
}

/** A logger whose lines land in `lines`. */
const loggerInto = (db: TestDatabase, lines: Record<string, unknown>[]) =>
  createLogger({ ...db.config, logLevel: 'info' }, { name: 'test', destination: linesInto(lines) });

const keysOf = async (db: TestDatabase) =>
  Object.fromEntries(
    (await db.sql<{ id: string; key: string | null }[]>`select id, email_key as key from app_users order by id`).map(
      (row) => [row.id, row.key],
    ),
  );

/** The audit's finding about users sharing an email (shared/security/audit.ts), in brief. */
function sharedFinding(config: Config, facts: AuditFacts): { severity: string; count: string | undefined } | undefined {
  const finding = auditConfig(config, facts).find((each) => each.id === 'users.email-shared');
  return finding && { severity: finding.severity, count: /^\d+ enabled user\(s\)/.exec(finding.message)?.[0] };
}

const warningsIn = (lines: Record<string, unknown>[]) =>
  lines.filter((line) => line.level === 40 && 'sameAccountAs' in line).map((line) => [line.userId, line.sameAccountAs]);

describe('migration 038 on users whose emails have one key', () => {
  let db: TestDatabase;
  let deps: AccountDeps;
  const lines: Record<string, unknown>[] = [];
  before(async () => {
    db = await createTestDatabase({ empty: true });
    deps = { config: db.config, sql: db.sql, log: db.log, now: Date.now };
    await migrate({ config: db.config, log: db.log }, { dir: await migrationsBefore(38) });
    // rows the releases before could write: 'ädmin' beside 'Ädmin' (lower() under C told them
    // apart), and a decomposed spelling stored before emails were canonical, disabled since
    await db.sql`
      insert into app_users (id, email, role, owner, created_at, updated_at, disabled_at) values
        ('usr_A', 'Ädmin@example.com', 'admin', null, '2024-01-01', '2024-01-01', null),
        ('usr_B', 'ädmin@example.com', 'admin', null, '2024-01-02', '2024-01-02', null),
        ('usr_C', ${'A\u0308DMIN@example.com'}, 'admin', null, '2024-01-03', '2024-01-03', '2024-02-01'),
        ('usr_D', 'ｏｌｄ@example.com', 'admin', null, '2024-01-04', '2024-01-04', null)`;
    await migrate({ config: db.config, log: loggerInto(db, lines) });
  });

  it('does not fail: the first created holds the key, the later ones keep their rows without one', async () => {
    assert.deepEqual(await keysOf(db), {
      usr_A: 'ädmin@example.com',
      usr_B: null,
      usr_C: null,
      usr_D: 'old@example.com',
    });
  });

  it('warns of each enabled user left without key, naming the user holding it; a disabled one is not named', () => {
    assert.deepEqual(warningsIn(lines), [['usr_B', 'usr_A']]);
  });

  it('a user without key signs in with its own spelling; every other spelling reaches the key’s holder', async () => {
    assert.equal((await findUser(deps, 'ädmin@example.com')).id, 'usr_B');
    assert.equal((await findUser(deps, 'Ädmin@example.com')).id, 'usr_A');
    assert.equal((await findUser(deps, 'ÄDMIN@EXAMPLE.COM')).id, 'usr_A');
    assert.equal((await findUser(deps, 'ＯＬＤ@example.com')).id, 'usr_D');
  });

  it('no further account is made for the key: 409 APP_USER_EMAIL_TAKEN', async () => {
    for (const email of ['ädmin@EXAMPLE.com', 'ÄdMiN@example.com'])
      await assert.rejects(createUser(deps, OPERATOR, { email, role: 'admin' }), taken, email);
  });

  it('each app migrate warns again while the user without key is enabled, and not once it is disabled; app audit reports it meanwhile', async () => {
    const again: Record<string, unknown>[] = [];
    await migrate({ config: db.config, log: loggerInto(db, again) });
    assert.deepEqual(warningsIn(again), [['usr_B', 'usr_A']]);
    assert.deepEqual(sharedFinding(db.config, await databaseFacts({ sql: db.sql, config: db.config })), {
      severity: 'medium',
      count: '1 enabled user(s)',
    });
    await setUserDisabled(deps, OPERATOR, 'usr_B', true);
    assert.equal(sharedFinding(db.config, await databaseFacts({ sql: db.sql, config: db.config })), undefined);
    const after: Record<string, unknown>[] = [];
    await migrate({ config: db.config, log: loggerInto(db, after) });
    assert.deepEqual(warningsIn(after), []);
    assert.equal((await keysOf(db)).usr_A, 'ädmin@example.com');
  });
});

describe('email keys SQL got wrong, and rows the release before writes', () => {
  let db: TestDatabase;
  let deps: AccountDeps;
  before(async () => {
    db = await createTestDatabase();
    deps = { config: db.config, sql: db.sql, log: db.log, now: Date.now };
  });

  it('app migrate rewrites a key as the application computes it; a later user holding it gives it to the first', async () => {
    // a server without ICU lowers ASCII letters only: the keys migration 038 gave these rows
    await db.sql`
      insert into app_users (id, email, email_key, role, owner, created_at, updated_at) values
        ('usr_E1', 'Émile@example.com', 'Émile@example.com', 'admin', null, '2024-01-01', '2024-01-01'),
        ('usr_E2', 'émile@example.com', 'émile@example.com', 'admin', null, '2024-01-02', '2024-01-02'),
        ('usr_Z', 'ZOË@example.com', 'zoË@example.com', 'admin', null, '2024-01-03', '2024-01-03'),
        ('usr_P', 'plain@example.com', 'plain@example.com', 'admin', null, '2024-01-04', '2024-01-04')`;
    const lines: Record<string, unknown>[] = [];
    const result = await keyUserEmails({ sql: db.sql, log: loggerInto(db, lines) });
    assert.equal(result.keyed, 2);
    const keys = await keysOf(db);
    assert.deepEqual(
      [keys.usr_E1, keys.usr_E2, keys.usr_Z, keys.usr_P],
      ['émile@example.com', null, 'zoë@example.com', 'plain@example.com'],
    );
    assert.deepEqual(warningsIn(lines), [['usr_E2', 'usr_E1']]);
    assert.equal((await findUser(deps, 'ÉMILE@example.com')).id, 'usr_E1');
    assert.equal((await findUser(deps, 'zoë@example.com')).id, 'usr_Z');
  });

  it('a user the release before inserts (no key, its on conflict on lower(email)) gets the key; a second for it is refused', async () => {
    const insertAsBefore = (id: string, email: string) => db.sql`
      insert into app_users (id, email, name, role, owner, password_hash, created_at, updated_at)
      values (${id}, ${email}, null, 'admin', null, null, now(), now())
      on conflict (lower(email)) do nothing
      returning id`;
    assert.equal((await insertAsBefore('usr_N1', 'Ñandú@example.com')).length, 1);
    assert.equal((await keysOf(db)).usr_N1, 'ñandú@example.com');
    assert.equal((await findUser(deps, 'ÑANDÚ@EXAMPLE.COM')).id, 'usr_N1');
    await assert.rejects(
      insertAsBefore('usr_N2', 'ñandú@example.com'),
      (error: { code?: string }) => error.code === '23505',
    );
    await assert.rejects(createUser(deps, OPERATOR, { email: 'ñANDÚ@example.com', role: 'admin' }), taken);
  });
});

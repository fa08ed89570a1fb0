/**
 * The one listing of users (shared/accounts/users.ts `listUsers`), which the console's Users page
 * and `users:list` page through: a page at a time with the total, in an order that stays put
 * between pages (creation, ties by id), narrowed by state, role, owner and email, and refused
 * past the paging bound (`api.maxPageOffset`, 422 `APP_PAGE_TOO_DEEP`) as every other listing is.
 * The tenants (owners named by users, endpoints or tokens) page the same way.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { OPERATOR } from '../../../shared/access/actor.ts';
import type { AccountDeps } from '../../../shared/accounts/deps.ts';
import { createUser, listUsers, setUserDisabled, type User } from '../../../shared/accounts/users.ts';
import { AppError } from '../../../shared/errors/app-error.ts';
import { firstOwners, listTenants } from '../../../shared/accounts/tenants.ts';
import { createTestDatabase } from '../../helpers/database.ts';

describe('listUsers pages', () => {
  let deps: AccountDeps;
  let listing: Parameters<typeof listUsers>[0];
  let made: User[] = [];

  before(async () => {
    const db = await createTestDatabase();
    // the first 60 users share one creation time: their order between pages rests on the id alone
    const start = Date.parse('2026-01-01T00:00:00Z');
    let tick = 0;
    const now = () => (tick < 60 ? start : start + tick * 1000);
    deps = { config: db.config, sql: db.sql, log: db.log, now };
    // 61 records skipped at most: pages 1 and 2 of 50 are answered, page 3 (100 skipped) is not
    listing = { sql: db.sql, config: db.configWith({ api: { maxPageOffset: 61 } }) };
    for (let n = 0; n < 120; n += 1) {
      const member = n % 3 !== 0;
      made.push(
        await createUser(deps, OPERATOR, {
          email: `person${String(n).padStart(3, '0')}@${member ? 'acme' : 'ops'}.test`,
          role: member ? 'member' : 'admin',
          owner: member ? 'acme' : null,
        }),
      );
      tick += 1;
    }
    made = made.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
  });

  it('lists 120 users 50 a page with the total, each page following on from the one before', async () => {
    const first = await listUsers(listing, OPERATOR, { page: 1, perPage: 50 });
    const second = await listUsers(listing, OPERATOR, { page: 2, perPage: 50 });
    assert.deepEqual([first.total, second.total], [120, 120]);
    assert.deepEqual([first.records.length, second.records.length], [50, 50]);
    assert.deepEqual(
      [...first.records, ...second.records].map((user) => user.id),
      made.slice(0, 100).map((user) => user.id),
      'creation order, ties by id: page 2 starts with the user after the last of page 1',
    );
    // the same page asked again answers the same users in the same order
    assert.deepEqual(
      (await listUsers(listing, OPERATOR, { page: 2, perPage: 50 })).records.map((user) => user.id),
      second.records.map((user) => user.id),
    );
    // the last page holds the rest; without the bound the whole listing is reachable
    const third = await listUsers({ ...listing, config: deps.config as never }, OPERATOR, { page: 3, perPage: 50 });
    assert.deepEqual(
      third.records.map((user) => user.id),
      made.slice(100).map((user) => user.id),
    );
  });

  it('refuses a page past api.maxPageOffset with APP_PAGE_TOO_DEEP, naming the filters that narrow it', async () => {
    await assert.rejects(listUsers(listing, OPERATOR, { page: 3, perPage: 50 }), (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.status, 422);
      assert.equal(error.code, 'APP_PAGE_TOO_DEEP');
      assert.match(error.message, /narrow the listing with enabled, role, owner, email/);
      return true;
    });
  });

  it('narrows by state, role, owner and email, the total counting what the filters select', async () => {
    const disabled = made.find((user) => user.role === 'member') as User;
    await setUserDisabled({ ...deps, now: Date.now }, OPERATOR, disabled.id, true);
    const page = { page: 1, perPage: 100 };
    assert.equal((await listUsers(listing, OPERATOR, { ...page, enabled: false })).total, 1);
    assert.equal((await listUsers(listing, OPERATOR, { ...page, enabled: true })).total, 119);
    const admins = await listUsers(listing, OPERATOR, { ...page, role: 'admin' });
    assert.equal(admins.total, 40);
    assert.ok(admins.records.every((user) => user.role === 'admin' && user.owner === null));
    assert.equal((await listUsers(listing, OPERATOR, { ...page, owner: null })).total, 40);
    assert.equal((await listUsers(listing, OPERATOR, { ...page, owner: 'acme', enabled: true })).total, 79);
    assert.equal((await listUsers(listing, OPERATOR, { ...page, owner: 'globex' })).total, 0);
    // the email search: any case, and its LIKE wildcards taken literally
    const found = await listUsers(listing, OPERATOR, { ...page, email: 'PERSON11' });
    assert.deepEqual(found.records.map((user) => user.email).sort(), [
      'person110@acme.test',
      'person111@ops.test',
      'person112@acme.test',
      'person113@acme.test',
      'person114@ops.test',
      'person115@acme.test',
      'person116@acme.test',
      'person117@ops.test',
      'person118@acme.test',
      'person119@acme.test',
    ]);
    assert.equal((await listUsers(listing, OPERATOR, { ...page, email: '%' })).total, 0, 'a % is no wildcard');
    assert.equal((await listUsers(listing, OPERATOR, { ...page, email: 'person_' })).total, 0, 'a _ is no wildcard');
    await assert.rejects(listUsers(listing, OPERATOR, { ...page, role: 'owner' }), { code: 'APP_USER_FIELD_INVALID' });
  });
});

describe('listTenants pages', () => {
  it('lists 120 tenants 50 a page by owner with the total, and refuses a page past api.maxPageOffset', async () => {
    const db = await createTestDatabase();
    const deps = { config: db.config, sql: db.sql, log: db.log, now: Date.now };
    for (let n = 0; n < 120; n += 1)
      await createUser(deps, OPERATOR, {
        email: `t${n}@tenants.test`,
        role: 'viewer',
        owner: `t${String(n).padStart(3, '0')}`,
      });
    const listing = { sql: db.sql, config: db.configWith({ api: { maxPageOffset: 61 } }) };
    const first = await listTenants(listing, OPERATOR, { page: 1, perPage: 50 });
    const second = await listTenants(listing, OPERATOR, { page: 2, perPage: 50 });
    assert.deepEqual([first.total, second.total], [120, 120]);
    assert.deepEqual(
      [...first.records, ...second.records].map((tenant) => tenant.owner),
      Array.from({ length: 100 }, (_, n) => `t${String(n).padStart(3, '0')}`),
    );
    assert.equal(first.records[0].users, 1);
    await assert.rejects(listTenants(listing, OPERATOR, { page: 3, perPage: 50 }), { code: 'APP_PAGE_TOO_DEEP' });
    // the overview's choices: the same owners in the same order, the first of them only
    assert.deepEqual(
      await firstOwners(listing, OPERATOR, 70),
      Array.from({ length: 70 }, (_, n) => `t${String(n).padStart(3, '0')}`),
    );
  });
});

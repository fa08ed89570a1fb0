/**
 * Minting for a caller (shared/tokens/api-tokens.ts `mintToken`): a member mints for its own owner
 * as stored, so a tenant whose owner was stored before the rule against surrounding whitespace
 * still mints, while an admin naming such an owner for a new token is refused.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { actorOf, OPERATOR } from '../../../shared/access/actor.ts';
import { createUser } from '../../../shared/accounts/users.ts';
import { isAppError } from '../../../shared/errors/app-error.ts';
import { mintToken } from '../../../shared/tokens/api-tokens.ts';
import { createTestDatabase } from '../../helpers/database.ts';

const db = await createTestDatabase();
const accounts = { config: db.config, sql: db.sql, log: db.log, now: Date.now };
const deps = { sql: db.sql, log: db.log };

describe('mintToken and owners stored before the whitespace rule', () => {
  it("a member mints for its own stored owner 'acme-old '; an admin naming it is refused", async () => {
    const user = await createUser(accounts, OPERATOR, {
      email: 'padded@example.com',
      role: 'member',
      owner: 'acme-old',
    });
    // as a release that accepted it wrote it
    await db.sql`update app_users set owner = 'acme-old ' where id = ${user.id}`;
    const member = actorOf({
      id: user.id,
      kind: 'user',
      userId: user.id,
      roles: ['member'],
      owner: 'acme-old ',
    } as never);
    const minted = await mintToken(deps, member, { name: 'backend' });
    assert.equal(minted.owner, 'acme-old ');

    await assert.rejects(
      mintToken(deps, OPERATOR, { name: 'new', role: 'member', owner: 'acme-new ' }),
      (error: unknown) => isAppError(error) && error.code === 'APP_WEBHOOK_OWNER_INVALID',
    );
  });
});

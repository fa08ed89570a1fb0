import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  createToken,
  listTokens,
  revokeToken,
  verifyToken,
  principalOfToken,
  TOKEN_PREFIX,
} from '../../../shared/tokens/index.ts';
import { tokenDigest } from '../../../shared/tokens/format.ts';
import { isAppError } from '../../../shared/errors/app-error.ts';
import { createTestDatabase } from '../../helpers/database.ts';
import { eventually } from '../../helpers/poll.ts';

const db = await createTestDatabase();
const deps = { sql: db.sql, log: db.log };

const code = (expected: string, field?: string) => (error: unknown) => {
  assert.ok(isAppError(error), String(error));
  assert.equal(error.code, expected);
  if (field !== undefined) assert.equal(error.data?.field, field);
  return true;
};

describe('API tokens', () => {
  it('a token is answered once; only its SHA-256 digest is stored, never its text', async () => {
    const created = await createToken(deps, { name: 'billing backend', role: 'member', owner: 'tenant-a' });
    assert.ok(created.token.startsWith(TOKEN_PREFIX));
    assert.match(created.id, /^tok_[0-9A-Z]{26}$/);
    assert.equal(created.prefix, created.token.slice(0, TOKEN_PREFIX.length + 4));
    const [row] = await db.sql<{ digest: string }[]>`select * from app_api_tokens where id = ${created.id}`;
    assert.equal(row.digest, tokenDigest(created.token));
    const stored = JSON.stringify(await db.sql`select * from app_api_tokens`);
    assert.equal(stored.includes(created.token), false);
    const listed = JSON.stringify(await listTokens(deps));
    assert.equal(listed.includes(created.token), false, 'listings never show the token');
    assert.equal(listed.includes(row.digest), false, 'nor its digest');
  });

  it('verify answers the token for its text, null for an unknown, malformed, revoked or expired one', async () => {
    const created = await createToken(deps, { name: 'ops', role: 'admin' });
    assert.equal((await verifyToken(deps, created.token))?.id, created.id);
    assert.equal(await verifyToken(deps, `${TOKEN_PREFIX}${'A'.repeat(43)}`), null);
    assert.equal(await verifyToken(deps, 'not a token'), null);
    assert.equal(await verifyToken(deps, undefined), null);
    await revokeToken(deps, created.id);
    assert.equal(await verifyToken(deps, created.token), null, 'revoked: refused at once');
    const short = await createToken(deps, { name: 'short', role: 'admin', expiresInMs: 1 });
    assert.ok(short.expiresAt instanceof Date);
    // a token expires by the database's clock, which verify asks (the row's own microseconds, not a Date's milliseconds)
    await eventually(
      async () =>
        (
          await db.sql<
            { ended: boolean }[]
          >`select now() >= expires_at as ended from app_api_tokens where id = ${short.id}`
        )[0].ended,
      10_000,
      "the database clock to pass the token's expiry",
    );
    assert.equal(await verifyToken(deps, short.token), null, 'expired');
  });

  it('a use is recorded as lastUsedAt', async () => {
    const created = await createToken(deps, { name: 'used', role: 'viewer', owner: 'tenant-a' });
    assert.equal(created.lastUsedAt, null);
    await verifyToken(deps, created.token);
    // the use is recorded without verify waiting for it
    const lastUsedAt = await eventually(
      async () => (await listTokens(deps)).find((t) => t.id === created.id)?.lastUsedAt,
      10_000,
      'the use to be recorded',
    );
    assert.ok(lastUsedAt instanceof Date);
  });

  it('member and viewer tokens need an owner; admin tokens refuse one (422 APP_TOKEN_FIELD_INVALID naming the field)', async () => {
    await assert.rejects(createToken(deps, { name: 'm', role: 'member' }), code('APP_TOKEN_FIELD_INVALID', 'owner'));
    await assert.rejects(createToken(deps, { name: 'v', role: 'viewer' }), code('APP_TOKEN_FIELD_INVALID', 'owner'));
    await assert.rejects(
      createToken(deps, { name: 'a', role: 'admin', owner: 'x' }),
      code('APP_TOKEN_FIELD_INVALID', 'owner'),
    );
    await assert.rejects(
      createToken(deps, { name: 'r', role: 'root' as never }),
      code('APP_TOKEN_FIELD_INVALID', 'role'),
    );
    await assert.rejects(createToken(deps, { name: ' ', role: 'admin' }), code('APP_TOKEN_FIELD_INVALID', 'name'));
    await assert.rejects(
      createToken(deps, { name: 'e', role: 'admin', expiresInMs: -5 }),
      code('APP_TOKEN_FIELD_INVALID', 'expiresInMs'),
    );
    await assert.rejects(
      createToken(deps, { name: 'o', role: 'member', owner: '' }),
      code('APP_WEBHOOK_OWNER_INVALID', 'owner'),
    );
    for (const owner of ['tenant-a ', ' tenant-a', 'tenant-a\u009b'])
      await assert.rejects(
        createToken(deps, { name: 'o', role: 'member', owner }),
        code('APP_WEBHOOK_OWNER_INVALID', 'owner'),
      );
    for (const name of ['ci\u009b2J', 'ci\u0085', 'ci\u001b[2J'])
      await assert.rejects(createToken(deps, { name, role: 'admin' }), code('APP_TOKEN_FIELD_INVALID', 'name'));
  });

  it('revoke: listed as revoked only when asked; again is harmless; unknown id is 404 APP_TOKEN_NOT_FOUND', async () => {
    const created = await createToken(deps, { name: 'to revoke', role: 'admin' });
    const revoked = await revokeToken(deps, created.id);
    assert.ok(revoked.revokedAt instanceof Date);
    assert.deepEqual((await revokeToken(deps, created.id)).revokedAt, revoked.revokedAt);
    assert.equal(
      (await listTokens(deps)).some((t) => t.id === created.id),
      false,
    );
    assert.equal(
      (await listTokens(deps, { includeRevoked: true })).some((t) => t.id === created.id),
      true,
    );
    await assert.rejects(revokeToken(deps, 'tok_nope'), code('APP_TOKEN_NOT_FOUND'));
  });
});

describe('principal of a token', () => {
  it('a token principal has the token id, its one role, its owner and the user it belongs to', async () => {
    const created = await createToken(deps, { name: 'p', role: 'member', owner: 'tenant-b' });
    const principal = principalOfToken(created);
    assert.deepEqual(
      { ...principal, roles: [...principal.roles] },
      {
        kind: 'token',
        id: created.id,
        tokenId: created.id,
        name: 'p',
        roles: ['member'],
        owner: 'tenant-b',
        mintedBy: null,
      },
    );
  });
});

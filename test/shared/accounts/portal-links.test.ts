/**
 * Tenant portal links: made for one owner as a member or viewer, stored as a digest,
 * spent once within `auth.portalLinkTtl` into a portal session that acts as that role of that
 * owner; refused when used, expired, unknown or malformed.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { AccountDeps } from '../../../shared/accounts/deps.ts';
import { createPortalLink, usePortalLink } from '../../../shared/accounts/portal-links.ts';
import { resolveSession } from '../../../shared/accounts/sessions.ts';
import { secretDigest } from '../../../shared/accounts/secrets.ts';
import { isAppError } from '../../../shared/errors/app-error.ts';
import { createTestDatabase } from '../../helpers/database.ts';
import { OPERATOR } from '../../../shared/access/actor.ts';

const refusedWith = (code: string) => (error: unknown) => isAppError(error) && error.code === code;

describe('portal links', () => {
  let deps: AccountDeps;
  let clock = Date.parse('2026-05-01T12:00:00Z');
  before(async () => {
    const db = await createTestDatabase();
    deps = { config: db.config, sql: db.sql, log: db.log, now: () => clock };
  });

  it('a link becomes a portal session of its owner and role, once; only its digest is stored', async () => {
    const link = await createPortalLink(deps, OPERATOR, { owner: 'acme', role: 'viewer' });
    assert.equal(link.expiresAt.getTime(), clock + deps.config.auth.portalLinkTtl);
    const [row] = await deps.sql`select digest, owner, role from app_portal_links`;
    assert.deepEqual({ ...row }, { digest: secretDigest(link.token), owner: 'acme', role: 'viewer' });
    const session = await usePortalLink(deps, link.token);
    assert.equal(session.userId, null);
    assert.deepEqual(session.portal, { owner: 'acme', role: 'viewer' });
    const resolved = await resolveSession(deps, session.cookie);
    assert.equal(resolved?.user, null);
    assert.deepEqual(resolved?.session.portal, { owner: 'acme', role: 'viewer' });
    await assert.rejects(usePortalLink(deps, link.token), refusedWith('APP_PORTAL_LINK_INVALID'));
  });

  it('an expired link is refused; so are unknown and malformed ones', async () => {
    const link = await createPortalLink(deps, OPERATOR, { owner: 'acme' });
    clock += deps.config.auth.portalLinkTtl;
    await assert.rejects(usePortalLink(deps, link.token), refusedWith('APP_PORTAL_LINK_INVALID'));
    await assert.rejects(usePortalLink(deps, `app_prt_${'x'.repeat(43)}`), refusedWith('APP_PORTAL_LINK_INVALID'));
    await assert.rejects(usePortalLink(deps, 'nonsense'), refusedWith('APP_PORTAL_LINK_INVALID'));
  });

  it('needs an owner and a member or viewer role', async () => {
    await assert.rejects(
      createPortalLink(deps, OPERATOR, { owner: undefined }),
      refusedWith('APP_PORTAL_LINK_FIELD_INVALID'),
    );
    await assert.rejects(
      createPortalLink(deps, OPERATOR, { owner: 'acme', role: 'admin' }),
      refusedWith('APP_PORTAL_LINK_FIELD_INVALID'),
    );
    await assert.rejects(
      createPortalLink(deps, OPERATOR, { owner: 'a\u0000b' }),
      refusedWith('APP_WEBHOOK_OWNER_INVALID'),
    );
    // not a tenant beside "acme", nor a name a terminal acts on (CSI)
    for (const owner of ['acme ', 'acme\u009b31m'])
      await assert.rejects(createPortalLink(deps, OPERATOR, { owner }), refusedWith('APP_WEBHOOK_OWNER_INVALID'));
  });
});

/**
 * Tenant portal links: made for one owner as a member or viewer, stored as a digest,
 * spent once within `auth.portalLinkTtl` into a portal session that acts as that role of that
 * owner; refused when used, expired, unknown or malformed. An admin ends every portal session of
 * one owner (and, if asked, spends its unopened links), and no one else may.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { AccountDeps } from '../../../shared/accounts/deps.ts';
import { createPortalLink, endPortalSessions, usePortalLink } from '../../../shared/accounts/portal-links.ts';
import { resolveSession, startSession } from '../../../shared/accounts/sessions.ts';
import { createUser } from '../../../shared/accounts/users.ts';
import { principalOfPortal, principalOfUser } from '../../../shared/tokens/principal.ts';
import { secretDigest } from '../../../shared/accounts/secrets.ts';
import { clockOf } from '../../../shared/accounts/deps.ts';
import { usePortalLinkRow } from '../../../shared/accounts/portal-store.ts';
import { transaction } from '../../../shared/db/transaction.ts';
import { waitingOn } from '../../helpers/insert-hold.ts';
import { eventually } from '../../helpers/poll.ts';
import { isAppError } from '../../../shared/errors/app-error.ts';
import { createTestDatabase } from '../../helpers/database.ts';
import { actorOf, OPERATOR } from '../../../shared/access/actor.ts';

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
    // an empty owner is no owner: the reason asks for one, not to leave it out
    await assert.rejects(createPortalLink(deps, OPERATOR, { owner: '' }), (error: Error) => {
      assert.match(error.message, /opens the console of one owner: give it/);
      return true;
    });
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

describe('ending the portal sessions of an owner', () => {
  let deps: AccountDeps;
  let clock = Date.parse('2026-05-01T12:00:00Z');
  let made = 0;
  before(async () => {
    const db = await createTestDatabase();
    deps = { config: db.config, sql: db.sql, log: db.log, now: () => clock };
  });

  /** A portal session of `owner`: its cookie. */
  const portalSession = async (owner: string, role: 'member' | 'viewer' = 'member') =>
    (await usePortalLink(deps, (await createPortalLink(deps, OPERATOR, { owner, role })).token)).cookie;
  /** A signed-in user of `owner` (a member): its cookie. */
  const userSession = async (owner: string) => {
    made += 1;
    const user = await createUser(deps, OPERATOR, { email: `u${made}@example.com`, role: 'member', owner });
    return (await startSession(deps, user.id)).cookie;
  };
  const live = async (cookie: string) => (await resolveSession(deps, cookie)) !== undefined;

  it("ends every portal session of the owner, and neither other owners' portals nor any user's session", async () => {
    const ended = [await portalSession('end-a'), await portalSession('end-a', 'viewer')];
    const kept = [await portalSession('end-b'), await userSession('end-a'), await userSession('end-b')];
    const answer = await endPortalSessions(deps, OPERATOR, { owner: 'end-a' });
    assert.deepEqual(answer, { owner: 'end-a', sessions: 2, links: 0 });
    for (const cookie of ended) assert.equal(await live(cookie), false, 'a portal session of end-a ended');
    for (const cookie of kept) assert.equal(await live(cookie), true, "another owner's portal, or a user's session");
  });

  it("with links, spends the owner's unopened links (only those that still work), and leaves other owners' links", async () => {
    const expired = await createPortalLink(deps, OPERATOR, { owner: 'links-a' });
    clock += deps.config.auth.portalLinkTtl - 1000;
    const unopened = await createPortalLink(deps, OPERATOR, { owner: 'links-a' });
    const spent = await createPortalLink(deps, OPERATOR, { owner: 'links-a' });
    const session = (await usePortalLink(deps, spent.token)).cookie;
    const other = await createPortalLink(deps, OPERATOR, { owner: 'links-b' });
    clock += 2000; // the first has expired by now: nothing to spend
    assert.deepEqual(await endPortalSessions(deps, OPERATOR, { owner: 'links-a', links: true }), {
      owner: 'links-a',
      sessions: 1,
      links: 1,
    });
    assert.equal(await live(session), false);
    for (const link of [unopened, expired, spent])
      await assert.rejects(usePortalLink(deps, link.token), refusedWith('APP_PORTAL_LINK_INVALID'));
    assert.ok(await live((await usePortalLink(deps, other.token)).cookie), "another owner's link still signs in");
  });

  it('with links, a link being opened meanwhile is waited for, and the session it started ends too', async () => {
    const link = await createPortalLink(deps, OPERATOR, { owner: 'racing' });
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let cookie = '';
    // the link's use, spent and its session started, not yet committed
    const use = transaction(deps.sql, async (tx) => {
      const grant = await usePortalLinkRow(tx, secretDigest(link.token), clockOf(deps));
      assert.ok(grant);
      cookie = (await startSession(deps, null, { portal: grant, sql: tx })).cookie;
      await held;
    });
    await eventually(() => cookie !== '', 10_000, 'the link to be spent');
    const ending = endPortalSessions(deps, OPERATOR, { owner: 'racing', links: true });
    await eventually(() => waitingOn(deps.sql, ['transactionid', 'tuple']), 10_000, 'the end to wait on the link');
    release();
    await use;
    assert.deepEqual(await ending, { owner: 'racing', sessions: 1, links: 0 });
    assert.equal(await live(cookie), false, 'the session of the link used meanwhile ended with the others');
  });

  it('without links, an unopened link still signs in afterwards', async () => {
    const link = await createPortalLink(deps, OPERATOR, { owner: 'keep-links' });
    assert.deepEqual(await endPortalSessions(deps, OPERATOR, { owner: 'keep-links' }), {
      owner: 'keep-links',
      sessions: 0,
      links: 0,
    });
    assert.ok(await live((await usePortalLink(deps, link.token)).cookie));
  });

  it('is refused to members, viewers and portal sessions with 403 APP_FORBIDDEN, and ends nothing', async () => {
    const cookie = await portalSession('acme');
    const link = await createPortalLink(deps, OPERATOR, { owner: 'acme' });
    const callers = [
      actorOf(principalOfUser({ id: 'usr_m', role: 'member', owner: 'acme', email: 'm@example.com' }, 'ses_m')),
      actorOf(principalOfUser({ id: 'usr_v', role: 'viewer', owner: 'acme', email: 'v@example.com' }, 'ses_v')),
      actorOf(principalOfPortal({ owner: 'acme', role: 'member' }, 'ses_pm')),
      actorOf(principalOfPortal({ owner: 'acme', role: 'viewer' }, 'ses_pv')),
    ];
    for (const actor of callers)
      await assert.rejects(
        endPortalSessions(deps, actor, { owner: 'acme', links: true }),
        refusedWith('APP_FORBIDDEN'),
      );
    assert.equal(await live(cookie), true, 'the portal session goes on');
    assert.ok(await live((await usePortalLink(deps, link.token)).cookie), 'the link still signs in');
  });

  it('needs an owner that an endpoint could have', async () => {
    for (const owner of [undefined, ''])
      await assert.rejects(endPortalSessions(deps, OPERATOR, { owner }), refusedWith('APP_PORTAL_LINK_FIELD_INVALID'));
    await assert.rejects(
      endPortalSessions(deps, OPERATOR, { owner: 'a\u0000b' }),
      refusedWith('APP_WEBHOOK_OWNER_INVALID'),
    );
  });
});

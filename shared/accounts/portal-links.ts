/**
 * Tenant portal links (what Svix calls the app portal): a deployer's product hands one
 * of its tenants a link that opens the console scoped to that tenant, without the tenant having
 * an account here. A link is made by an admin (the console's Tenants page) or `app portal:link
 * --owner <o>`; it works once, for `auth.portalLinkTtl`, and starts a portal session: a member
 * (or viewer) of that owner, with the ordinary session expiries. Only the digest of the link's
 * token is stored, and spending it is one conditional update (single use even under races).
 * An admin ends every portal session of an owner before its lifetime (`app portal:end`, the
 * Tenants page), and may spend its links not yet opened with them.
 */
import { unprocessable } from '../errors/app-error.ts';
import { authorize, type Actor } from '../access/actor.ts';
import { PORTAL_ROLES } from '../tokens/roles.ts';
import { assertOwner } from '../webhooks/endpoints/fields.ts';
import { clockOf, type AccountDeps } from './deps.ts';
import {
  deleteExpiredPortalLinks,
  insertPortalLink,
  portalLinkRowUsable,
  spendOwnerPortalLinks,
  usePortalLinkRow,
} from './portal-store.ts';
import { deleteOwnerPortalSessions } from './session-store.ts';
import { looksLikeSecret, newSecret, secretDigest } from './secrets.ts';
import { startSession, type PortalGrant, type StartedSession } from './sessions.ts';
import { transaction } from '../db/transaction.ts';

export const PORTAL_LINK_PREFIX = 'app_prt_';

export { PORTAL_ROLES };

/** The page a portal link opens (a form posting to `POST /portal`). */
export const portalLinkUrl = (base: string, token: string): string =>
  `${base}/portal?token=${encodeURIComponent(token)}`;

/** AppError 422 `APP_PORTAL_LINK_FIELD_INVALID` naming the field. */
const fieldInvalid = (field: 'owner' | 'role', reason: string) =>
  unprocessable(`invalid portal link ${field}: ${reason}`, {
    code: 'APP_PORTAL_LINK_FIELD_INVALID',
    data: { field, reason },
  });

/** AppError 422 `APP_PORTAL_LINK_INVALID`: unknown, used or expired (which one is not said). */
export const portalLinkInvalid = () =>
  unprocessable('this portal link is not valid: it may have expired or been used already; ask for a new one', {
    code: 'APP_PORTAL_LINK_INVALID',
  });

export interface PortalLinkInput {
  owner: unknown;
  /** member (default) or viewer. */
  role?: unknown;
}

/**
 * Makes a portal link for `owner`; answers its token, this once, and when it stops working.
 * Throws 422 `APP_PORTAL_LINK_FIELD_INVALID` (no owner, a role other than member or viewer) or
 * `APP_WEBHOOK_OWNER_INVALID` (an owner no endpoint could have); first 403 `APP_FORBIDDEN` to a
 * role that may not make portal links. The link records the user who made it (none: the CLI).
 */
export async function createPortalLink(
  deps: AccountDeps,
  actor: Actor,
  input: PortalLinkInput,
): Promise<{ token: string; owner: string; role: PortalGrant['role']; expiresAt: Date }> {
  authorize(actor, 'portalLinks.create');
  const owner = ownerNamed(input.owner);
  if (owner === null) throw fieldInvalid('owner', 'a portal link opens the console of one owner: give it');
  const role = input.role ?? 'member';
  if (!(PORTAL_ROLES as readonly unknown[]).includes(role))
    throw fieldInvalid('role', `must be one of ${PORTAL_ROLES.join(', ')}`);
  const token = newSecret(PORTAL_LINK_PREFIX);
  const at = clockOf(deps);
  const expiresAt = new Date(at.getTime() + deps.config.auth.portalLinkTtl);
  await transaction(deps.sql, async (tx) => {
    await insertPortalLink(tx, {
      digest: secretDigest(token),
      owner,
      role: role as PortalGrant['role'],
      createdBy: actor.userId,
      at,
      expiresAt,
    });
    await deleteExpiredPortalLinks(tx, new Date(at.getTime() - 86_400_000)); // keeps the table small
  });
  deps.log.info({ owner, role, by: actor.id }, 'portal link made');
  return { token, owner, role: role as PortalGrant['role'], expiresAt };
}

/**
 * Whether `token` is a portal link that would sign in now (known, unused, unexpired); nothing is
 * spent. The page a link opens asks for a new one at once when it would not, rather than offering
 * a button whose press can only fail.
 */
export async function portalLinkUsable(deps: AccountDeps, token: unknown): Promise<boolean> {
  if (!looksLikeSecret(token, PORTAL_LINK_PREFIX)) return false;
  return portalLinkRowUsable(deps.sql, secretDigest(token), clockOf(deps));
}

/**
 * Spends a portal link and starts its portal session, in one transaction: a link signs in once.
 * `replacing`: the session the request came with, which ends (no fixation: startSession).
 * Throws 422 `APP_PORTAL_LINK_INVALID` for a link that is unknown, used or expired.
 */
export async function usePortalLink(
  deps: AccountDeps,
  token: unknown,
  options: { replacing?: string } = {},
): Promise<StartedSession> {
  if (!looksLikeSecret(token, PORTAL_LINK_PREFIX)) throw portalLinkInvalid();
  const at = clockOf(deps);
  return transaction(deps.sql, async (tx) => {
    const grant = await usePortalLinkRow(tx, secretDigest(token), at);
    if (!grant) throw portalLinkInvalid();
    return startSession(deps, null, { portal: grant, sql: tx, replacing: options.replacing });
  });
}

/**
 * The owner a portal operation names, or null when it names none: an empty one too, which the
 * endpoints' rule refuses with "leave it out for no owner", a remedy these operations do not have.
 */
const ownerNamed = (owner: unknown): string | null => (owner === '' ? null : assertOwner(owner));

export interface EndPortalInput {
  owner: unknown;
  /** Also spend the owner's links not yet opened, so that none of them signs in afterwards. */
  links?: boolean;
}

/**
 * Ends every portal session of `owner` before its lifetime (a link forwarded to the wrong person,
 * a tenant whose relationship ended), and with `links` spends its unused, unexpired portal links
 * too. Users' sessions, of that owner's members and viewers too, are not touched: disabling a
 * user ends those. A session ended here is refused at its next request in every face, as sessions
 * are read from the database at each request. Answers how many sessions and links it ended.
 * Throws 403 `APP_FORBIDDEN` first to a role that may not, 422 `APP_PORTAL_LINK_FIELD_INVALID`
 * without an owner, `APP_WEBHOOK_OWNER_INVALID` for an owner no endpoint could have.
 */
export async function endPortalSessions(
  deps: AccountDeps,
  actor: Actor,
  input: EndPortalInput,
): Promise<{ owner: string; sessions: number; links: number }> {
  authorize(actor, 'portalSessions.end');
  const owner = ownerNamed(input.owner);
  if (owner === null) throw fieldInvalid('owner', 'name the owner whose portal sessions end');
  const at = clockOf(deps);
  const ended = await transaction(deps.sql, async (tx) => {
    // the links first: a link used meanwhile is either refused (this update spent it first) or
    // was spent first, and its session has committed before the delete below, which ends it
    const links = input.links === true ? await spendOwnerPortalLinks(tx, owner, at) : 0;
    return { links, sessions: await deleteOwnerPortalSessions(tx, owner) };
  });
  deps.log.info({ owner, ...ended, by: actor.id }, 'portal sessions ended');
  return { owner, ...ended };
}

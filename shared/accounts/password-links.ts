/**
 * Single-use links that set a password: `reset` links mailed by `POST /forgot-password`
 * (`auth.resetTtl`, one hour) and `invite` links printed by `app users:create` and
 * `app users:reset-link` (`auth.inviteTtl`). Only the digest of a link's token is stored; using
 * one sets the password, ends every session of the user, clears its sign-in lockout and
 * spends every other link it had.
 */
import { conflict, unprocessable } from '../errors/app-error.ts';
import { authorize, type Actor } from '../access/actor.ts';
import { clockOf, type AccountDeps } from './deps.ts';
import { clearFailures } from './lockout.ts';
import { insertLink, insertLinkWithin, linkUser, useLink, type LinkPurpose } from './link-store.ts';
import { checkNewPassword } from './passwords.ts';
import { looksLikeSecret, newSecret, secretDigest } from './secrets.ts';
import { findUserRow, storePassword, toUser, type User } from './users.ts';
import { selectUserById } from './user-store.ts';
import { transaction } from '../db/transaction.ts';

export const LINK_PREFIX = 'app_pwl_';

/** The base of the links the service hands out: `publicUrl`, else the given origin. */
export const linkBase = (deps: Pick<AccountDeps, 'config'>, origin: string): string =>
  (deps.config.publicUrl ?? origin).replace(/\/+$/, '');

/** The page a link opens (a form posting to `POST /reset-password`). */
export const passwordLinkUrl = (base: string, token: string): string =>
  `${base}/reset-password?token=${encodeURIComponent(token)}`;

/** Makes a link for user `userId`; answers its token, this once. */
export async function createPasswordLink(
  deps: AccountDeps,
  userId: string,
  purpose: LinkPurpose,
): Promise<{ token: string; expiresAt: Date }> {
  return (await makeLink(deps, userId, purpose)) as { token: string; expiresAt: Date };
}

/**
 * Makes a link for user `userId` and answers its token, this once; with `most`, only while the
 * user has fewer than `most` links of this purpose made within the purpose's time to live
 * (else undefined, nothing made).
 */
async function makeLink(
  deps: AccountDeps,
  userId: string,
  purpose: LinkPurpose,
  most?: number,
): Promise<{ token: string; expiresAt: Date } | undefined> {
  const token = newSecret(LINK_PREFIX);
  const at = clockOf(deps);
  const ttl = purpose === 'reset' ? deps.config.auth.resetTtl : deps.config.auth.inviteTtl;
  const link = { digest: secretDigest(token), userId, purpose, at, expiresAt: new Date(at.getTime() + ttl) };
  if (most === undefined) await transaction(deps.sql, (tx) => insertLink(tx, link));
  else {
    const bound = { most, since: new Date(at.getTime() - ttl) };
    if (!(await transaction(deps.sql, (tx) => insertLinkWithin(tx, link, bound)))) return undefined;
  }
  deps.log.info({ userId, purpose }, 'password link made');
  return { token, expiresAt: link.expiresAt };
}

/**
 * A set-password link (valid `auth.inviteTtl`) for the user with this id or email, made for
 * `actor`: how an admin or the operator invites a user or lets one back in. Throws 403
 * `APP_FORBIDDEN` first to a role that may not, 404 `APP_USER_NOT_FOUND`, and 409
 * `APP_USER_DISABLED` for a disabled user: its link would never work (a disabled user sets no
 * password), so handing one over would only send its holder to a page saying the link is spent.
 */
export async function setPasswordLinkFor(
  deps: AccountDeps,
  actor: Actor,
  idOrEmail: unknown,
): Promise<{ user: User; token: string; expiresAt: Date }> {
  authorize(actor, 'users.passwordLink');
  const user = toUser(await findUserRow(deps, idOrEmail));
  if (user.disabledAt !== null)
    throw conflict(`user ${user.email} is disabled: enable it first, then make its set-password link`, {
      code: 'APP_USER_DISABLED',
      data: { user: user.id },
    });
  return { user, ...(await createPasswordLink(deps, user.id, 'invite')) };
}

/** AppError 422 `APP_PASSWORD_LINK_INVALID`: unknown, used or expired (which one is not said). */
const linkInvalid = () =>
  unprocessable('this password link is not valid: it may have expired or been used already; ask for a new one', {
    code: 'APP_PASSWORD_LINK_INVALID',
  });

/**
 * The email of the account a set-password link is for, while the link works (unknown, used and
 * expired links, and a disabled user's, give null); nothing is spent. The page the link opens
 * shows it in its username field, so that a password manager files the new password under that
 * account. It tells the link's holder nothing more than the link lets it learn: whoever holds a
 * working link sets that account's password, and the sign-in page that follows names the email.
 */
export async function passwordLinkEmail(deps: AccountDeps, token: unknown): Promise<string | null> {
  if (!looksLikeSecret(token, LINK_PREFIX)) return null;
  const userId = await linkUser(deps.sql, secretDigest(token), clockOf(deps));
  if (!userId) return null;
  const row = await selectUserById(deps.sql, userId);
  return row && row.disabled_at === null ? row.email : null;
}

/**
 * Sets the password through a link: checks the new password, spends the link (once, even when
 * two requests race), stores the password and ends every session of the user, clears its
 * lockout. Throws 422 `APP_PASSWORD_LINK_INVALID` or `APP_PASSWORD_WEAK`.
 */
export async function completePasswordLink(deps: AccountDeps, token: unknown, password: unknown): Promise<User> {
  if (!looksLikeSecret(token, LINK_PREFIX)) throw linkInvalid();
  const at = clockOf(deps);
  const user = await transaction(deps.sql, async (tx) => {
    const userId = await useLink(tx, secretDigest(token), at);
    if (!userId) throw linkInvalid();
    const row = await selectUserById(tx, userId);
    if (!row || row.disabled_at !== null) throw linkInvalid();
    const checked = checkNewPassword(password, { minLength: deps.config.auth.passwordMinLength, email: row.email });
    return storePassword({ ...deps, sql: tx }, userId, checked); // spends the user's other links too
  });
  const lockout = deps.config.auth.lockout;
  if (lockout && deps.lockouts) await clearFailures(deps.lockouts, user.email, lockout);
  deps.log.info({ userId: user.id }, 'password set through a link');
  return user;
}

/**
 * The base of a link mailed to someone who did not ask for it (anyone may ask a reset for any
 * email): `publicUrl`, else, outside production, the request's origin. In production without
 * `publicUrl`, null: the origin comes from the request's `Host` header, which its sender chooses,
 * so a link built on it could carry the token to the sender's own host.
 */
export const mailedLinkBase = (config: AccountDeps['config'], origin: string): string | null =>
  config.publicUrl === null && config.env === 'production' ? null : linkBase({ config }, origin);

/** A link's lifetime as a page or a mail says it: `1 hour`, `2 hours`, `90 minutes`. */
export function lifetimeText(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  return minutes % 60 === 0 ? `${minutes / 60} hour${minutes === 60 ? '' : 's'}` : `${minutes} minutes`;
}

/**
 * Most reset links (so mails) one account is sent within `auth.resetTtl`: anyone may ask a reset
 * for any email, from as many addresses as they have, and the authentication limiter counts per
 * address; this bounds what reaches one mailbox (and the links stored for one user), whoever asks.
 */
export const RESETS_PER_TTL = 3;

/**
 * What `requestPasswordReset` did (`mailed`: a link made and handed to the mailer; `too-many`:
 * the account had `RESETS_PER_TTL` links made within `auth.resetTtl` already, so none was made);
 * the caller's answer is the same whatever it was.
 */
export type ResetRequest = 'mailed' | 'no-such-user' | 'no-public-url' | 'too-many';

/**
 * `POST /forgot-password`: when an enabled user has this email, makes a reset link and mails
 * it; otherwise nothing. The mail is sent on its own (a failure is logged); `POST
 * /forgot-password` answers without waiting for any of it, so neither the answer nor its time
 * tells whether the email exists. In production without `publicUrl` no link is made and nothing
 * is mailed (`mailedLinkBase`); the refusal is logged with the remedy.
 */
export async function requestPasswordReset(deps: AccountDeps, email: unknown, origin: string): Promise<ResetRequest> {
  if (typeof email !== 'string' || email.length === 0 || email.length > 320) return 'no-such-user';
  const row = await findUserRow(deps, email.trim()).catch(() => undefined);
  if (!row || row.disabled_at !== null) return 'no-such-user';
  const base = mailedLinkBase(deps.config, origin);
  if (base === null) {
    deps.log.error(
      { userId: row.id },
      "a password reset was asked but no mail was sent: publicUrl is not set, and a link built from the request's Host header could point anywhere; set APP_PUBLIC_URL",
    );
    return 'no-public-url';
  }
  const link = await makeLink(deps, row.id, 'reset', RESETS_PER_TTL);
  if (!link) {
    deps.log.warn(
      { userId: row.id, most: RESETS_PER_TTL },
      'a password reset was asked but no mail was sent: the account was sent as many reset links as it may be within auth.resetTtl',
    );
    return 'too-many';
  }
  const { token } = link;
  const url = passwordLinkUrl(base, token);
  const hours = Math.round(deps.config.auth.resetTtl / 360_000) / 10;
  deps.mailer
    ?.send({
      to: row.email,
      subject: 'Reset your password',
      text: `Someone asked to reset the password of ${row.email}.\n\nTo choose a new password, open this link within ${hours} hour${hours === 1 ? '' : 's'}; it works once:\n\n${url}\n\nIf it was not you, ignore this mail: your password stays as it is.\n`,
    })
    .catch((error: unknown) =>
      deps.log.error({ err: error, userId: row.id }, 'the password reset mail could not be sent'),
    );
  return 'mailed';
}

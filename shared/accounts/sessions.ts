/**
 * Sign-in sessions kept in PostgreSQL, so every web process shares them and a restart
 * signs nobody out. The cookie holds a random secret; the table holds its digest. A session ends
 * when it has not been used for `auth.session.idle`, `auth.session.absolute` after sign-in, at
 * sign-out, and with every session of its user when the password changes or the user is
 * disabled; a portal session with every other of its owner when an admin ends them
 * (portal-links.ts `endPortalSessions`). A session's id, cookie and CSRF secret never outlive a change of who is signed in or
 * of their credentials: each sign-in (a portal link's too) starts a new session in place of the
 * one the browser came with (a cookie planted before sign-in is never promoted), and a password
 * change ends the session it was made in and starts a new one (so a copy of the old cookie taken
 * before the change, by whoever the change keeps out, works no more).
 */
import { ulid } from '../webhooks/ids.ts';
import { clockOf, type AccountDeps } from './deps.ts';
import { looksLikeSecret, newSecret, secretDigest } from './secrets.ts';
import type { Queryable } from '../db/connect.ts';
import { inTransaction, transaction } from '../db/transaction.ts';
import {
  deleteEndedSessions,
  deleteSession,
  deleteUserSessions,
  insertSession,
  selectSessionByDigest,
  touchSession,
  type SessionRow,
} from './session-store.ts';
import { failed } from './sign-in.ts';
import { toUser, type User } from './users.ts';

/** What a tenant portal session acts as: a member or viewer of one owner, without a user account. */
export interface PortalGrant {
  owner: string;
  role: 'member' | 'viewer';
}

export interface Session {
  /** `ses_…` */
  id: string;
  /** The signed-in user; null for a portal session. */
  userId: string | null;
  /** The tenant and role of a portal session; null for a user's. */
  portal: PortalGrant | null;
  /** What the session's CSRF tokens are made from (never sent to the client as is). */
  csrfSecret: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
}

/** A session just started: the cookie value to send, this once. */
export type StartedSession = Session & { cookie: string };

/** A use is recorded at most this often per session (idle expiry is judged to this resolution). */
export const LAST_SEEN_RESOLUTION_MS = 60_000;

/**
 * Starts a session of user `userId`, or (`portal`) a tenant portal session; `sql` may be the
 * caller's transaction. `replacing` names the session the request came with, if any: it ends in
 * the same statement sequence, so the new session never lives beside the one it replaces. A user's
 * session starts only while the user is enabled: a user disabled while the request ran (its
 * password already checked) gets the sign-in's refusal, 401 `APP_AUTH_FAILED`, and no session.
 */
export async function startSession(
  deps: AccountDeps,
  userId: string | null,
  options: { portal?: PortalGrant; sql?: Queryable; replacing?: string } = {},
): Promise<StartedSession> {
  const cookie = newSecret();
  const at = clockOf(deps);
  // one transaction (a savepoint of the caller's): the replaced session ends only with the new one
  // starting, and a request answered 503 by its timeout commits neither (shared/db/transaction.ts)
  const row = await inTransaction(options.sql ?? deps.sql, async (tx) => {
    if (options.replacing) await deleteSession(tx, options.replacing);
    return insertSession(tx, {
      id: `ses_${ulid()}`,
      digest: secretDigest(cookie),
      userId,
      portal: options.portal,
      csrfSecret: newSecret(),
      at,
      expiresAt: new Date(at.getTime() + deps.config.auth.session.absolute),
    });
  });
  if (options.replacing) deps.log.info({ sessionId: options.replacing }, 'session ended: replaced by a new one');
  // the user was disabled while the request ran (after its password was checked): it signs in no more
  if (!row) throw failed();
  deps.log.info({ userId, portalOwner: options.portal?.owner, sessionId: row.id }, 'session started');
  return { ...toSession(row), cookie };
}

const toSession = (row: SessionRow): Session => ({
  id: row.id,
  userId: row.user_id,
  portal:
    row.portal_owner !== null && row.portal_role !== null ? { owner: row.portal_owner, role: row.portal_role } : null,
  csrfSecret: row.csrf_secret,
  createdAt: row.created_at,
  lastSeenAt: row.last_seen_at,
  expiresAt: row.expires_at,
});

/**
 * The session a cookie value stands for and its user (null for a portal session), when the
 * session has not ended (idle, absolute expiry) and the user is enabled; undefined otherwise.
 * Records the use, at most once a minute.
 */
export async function resolveSession(
  deps: AccountDeps,
  cookie: unknown,
): Promise<{ session: Session; user: User | null } | undefined> {
  if (!looksLikeSecret(cookie)) return undefined;
  const found = await selectSessionByDigest(deps.sql, secretDigest(cookie));
  if (!found) return undefined;
  const { session, user } = found;
  const now = deps.now();
  const idleSince = now - session.last_seen_at.getTime();
  if (
    session.expires_at.getTime() <= now ||
    idleSince >= deps.config.auth.session.idle ||
    (user !== null && user.disabled_at !== null)
  )
    return undefined;
  if (idleSince >= LAST_SEEN_RESOLUTION_MS) {
    // awaited (once a minute at most): the next request must see this use, or it could judge the session idle
    await touchSession(deps.sql, session.id, new Date(now)).catch((error: unknown) =>
      deps.log.warn({ err: error, sessionId: session.id }, 'could not record the use of a session'),
    );
  }
  return { session: toSession(session), user: user === null ? null : toUser(user) };
}

/** Ends one session (sign-out). */
export async function endSession(deps: Pick<AccountDeps, 'sql' | 'log'>, sessionId: string): Promise<void> {
  await transaction(deps.sql, (tx) => deleteSession(tx, sessionId));
  deps.log.info({ sessionId }, 'session ended');
}

/** Ends every session of a user; how many ended. */
export async function endUserSessions(deps: Pick<AccountDeps, 'sql' | 'log'>, userId: string): Promise<number> {
  const ended = await transaction(deps.sql, (tx) => deleteUserSessions(tx, userId));
  deps.log.info({ userId, ended }, 'sessions of a user ended');
  return ended;
}

/** Deletes the rows of ended sessions (they are refused anyway; this keeps the table small). */
export function pruneSessions(deps: AccountDeps): Promise<number> {
  const now = deps.now();
  return deleteEndedSessions(deps.sql, new Date(now), new Date(now - deps.config.auth.session.idle));
}

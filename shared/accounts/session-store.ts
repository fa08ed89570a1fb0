/**
 * Queries of the session table (`app_sessions`). A session row is found by the digest of the
 * cookie's secret; its public id (`ses_…`) names it in logs and listings.
 */
import type { Queryable as Sql } from '../db/connect.ts';
import { enabledUserHeld, type UserRow } from './user-store.ts';

export interface SessionRow {
  id: string;
  /** null for a tenant portal session, which carries `portal_owner` and `portal_role` instead. */
  user_id: string | null;
  portal_owner: string | null;
  portal_role: 'member' | 'viewer' | null;
  csrf_secret: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
}

export async function insertSession(
  sql: Sql,
  input: {
    id: string;
    digest: string;
    userId: string | null;
    portal?: { owner: string; role: 'member' | 'viewer' };
    csrfSecret: string;
    at: Date;
    expiresAt: Date;
  },
): Promise<SessionRow | undefined> {
  // a user's session goes in only while the user is enabled (user-store.ts `enabledUserHeld`)
  const [row] = await sql<SessionRow[]>`
    with signed as (${enabledUserHeld(sql, input.userId)})
    insert into app_sessions (id, digest, user_id, portal_owner, portal_role, csrf_secret, created_at, last_seen_at, expires_at)
    select ${input.id}, ${input.digest}, signed.id, ${input.portal?.owner ?? null}, ${input.portal?.role ?? null},
           ${input.csrfSecret}, ${input.at}, ${input.at}, ${input.expiresAt}
      from signed
    returning id, user_id, portal_owner, portal_role, csrf_secret, created_at, last_seen_at, expires_at`;
  return row;
}

/**
 * The session with this digest and its user (prefixed `user_` columns), whatever their state;
 * `user` is null for a portal session.
 */
export async function selectSessionByDigest(
  sql: Sql,
  digest: string,
): Promise<{ session: SessionRow; user: UserRow | null } | undefined> {
  const rows = await sql<(SessionRow & { [K in keyof UserRow as `user_${K}`]: UserRow[K] })[]>`
    select s.id, s.portal_owner, s.portal_role, s.csrf_secret, s.created_at, s.last_seen_at, s.expires_at,
           s.user_id, u.email as user_email, u.name as user_name, u.role as user_role, u.owner as user_owner,
           u.password_hash as user_password_hash, u.disabled_at as user_disabled_at,
           u.created_at as user_created_at, u.updated_at as user_updated_at
      from app_sessions s left join app_users u on u.id = s.user_id
     where s.digest = ${digest}`;
  const row = rows[0];
  if (!row) return undefined;
  const session: SessionRow = {
    id: row.id,
    user_id: row.user_id,
    portal_owner: row.portal_owner,
    portal_role: row.portal_role,
    csrf_secret: row.csrf_secret,
    created_at: row.created_at,
    last_seen_at: row.last_seen_at,
    expires_at: row.expires_at,
  };
  if (row.user_id === null) return { session, user: null };
  return {
    session,
    user: {
      id: row.user_id,
      email: row.user_email,
      name: row.user_name,
      role: row.user_role,
      owner: row.user_owner,
      password_hash: row.user_password_hash,
      disabled_at: row.user_disabled_at,
      created_at: row.user_created_at,
      updated_at: row.user_updated_at,
    },
  };
}

/** Records a use of session `id` at `at`. */
export async function touchSession(sql: Sql, id: string, at: Date): Promise<void> {
  await sql`update app_sessions set last_seen_at = ${at} where id = ${id} and last_seen_at < ${at}`;
}

export async function deleteSession(sql: Sql, id: string): Promise<void> {
  await sql`delete from app_sessions where id = ${id}`;
}

/** Ends every session of user `userId`; how many ended. */
export async function deleteUserSessions(sql: Sql, userId: string): Promise<number> {
  const rows = await sql`delete from app_sessions where user_id = ${userId} returning id`;
  return rows.length;
}

/** Ends every tenant portal session of `owner` (users' sessions are never touched); how many ended. */
export async function deleteOwnerPortalSessions(sql: Sql, owner: string): Promise<number> {
  const rows = await sql`delete from app_sessions where portal_owner = ${owner} returning id`;
  return rows.length;
}

/** Deletes sessions past their absolute expiry or idle since before `idleBefore`. */
export async function deleteEndedSessions(sql: Sql, at: Date, idleBefore: Date): Promise<number> {
  const rows =
    await sql`delete from app_sessions where expires_at <= ${at} or last_seen_at <= ${idleBefore} returning id`;
  return rows.length;
}

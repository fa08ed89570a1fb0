/** Queries of the single-use password links (`app_password_links`). */
import type { Queryable as Sql } from '../db/connect.ts';

export type LinkPurpose = 'reset' | 'invite';

export async function insertLink(
  sql: Sql,
  input: { digest: string; userId: string; purpose: LinkPurpose; at: Date; expiresAt: Date },
): Promise<void> {
  await sql`
    insert into app_password_links (digest, user_id, purpose, created_at, expires_at)
    values (${input.digest}, ${input.userId}, ${input.purpose}, ${input.at}, ${input.expiresAt})`;
}

/**
 * Inserts a link unless its user already has `most` links of its purpose made after `since`;
 * whether it was inserted. Run in a transaction: the user's row is locked before the links are
 * counted (in a statement of its own, which sees what a request that held the lock committed),
 * so requests made at once for one user cannot each see room for one more.
 */
export async function insertLinkWithin(
  tx: Sql,
  input: { digest: string; userId: string; purpose: LinkPurpose; at: Date; expiresAt: Date },
  bound: { most: number; since: Date },
): Promise<boolean> {
  await tx`select 1 from app_users where id = ${input.userId} for update`;
  const [{ made }] = await tx<{ made: number }[]>`
    select count(*)::int as made from app_password_links
     where user_id = ${input.userId} and purpose = ${input.purpose} and created_at > ${bound.since}`;
  if (made >= bound.most) return false;
  await insertLink(tx, input);
  return true;
}

/** Marks the link used and answers its user id, when it exists, is unused and has not expired at `at`. */
export async function useLink(sql: Sql, digest: string, at: Date): Promise<string | undefined> {
  const rows = await sql<{ user_id: string }[]>`
    update app_password_links set used_at = ${at}
     where digest = ${digest} and used_at is null and expires_at > ${at}
    returning user_id`;
  return rows[0]?.user_id;
}

/** The user id of a link that exists, is unused and has not expired at `at` (it stays unused). */
export async function linkUser(sql: Sql, digest: string, at: Date): Promise<string | undefined> {
  const rows = await sql<{ user_id: string }[]>`
    select user_id from app_password_links
     where digest = ${digest} and used_at is null and expires_at > ${at}`;
  return rows[0]?.user_id;
}

/** Ends the unused links of a user (a newer link, or the password set another way, makes them moot). */
export async function expireLinksOfUser(sql: Sql, userId: string, at: Date): Promise<void> {
  await sql`update app_password_links set used_at = ${at} where user_id = ${userId} and used_at is null`;
}

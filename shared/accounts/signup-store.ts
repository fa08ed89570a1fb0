/** Queries of the mailed sign-up requests and their confirmation links (`app_signup_requests`). */
import type { Queryable as Sql } from '../db/connect.ts';

export interface SignupRequestInput {
  email: string;
  emailKey: string;
  name: string | null;
  /** The link's token digest; null: a notice to an email that has an account (no link). */
  digest: string | null;
  at: Date;
  expiresAt: Date;
}

/**
 * Records a mailed sign-up request unless its email key already has `most` made after `since`;
 * whether it was recorded. Run in a transaction: a lock on the email key (there is no user row to
 * lock) is taken before the requests are counted, in a statement of its own, so requests made at
 * once for one email cannot each see room for one more.
 */
export async function insertSignupRequestWithin(
  tx: Sql,
  input: SignupRequestInput,
  bound: { most: number; since: Date },
): Promise<boolean> {
  await tx`select pg_advisory_xact_lock(hashtextextended(${`app signup ${input.emailKey}`}, 0))`;
  const [{ made }] = await tx<{ made: number }[]>`
    select count(*)::int as made from app_signup_requests
     where email_key = ${input.emailKey} and created_at > ${bound.since}`;
  if (made >= bound.most) return false;
  await tx`
    insert into app_signup_requests (email, email_key, name, digest, created_at, expires_at)
    values (${input.email}, ${input.emailKey}, ${input.name}, ${input.digest}, ${input.at}, ${input.expiresAt})`;
  return true;
}

/** Spends the link: marks it used and answers its email, when it exists, is unused and has not expired at `at`. */
export async function useSignupLinkRow(sql: Sql, digest: string, at: Date): Promise<{ email: string } | undefined> {
  const rows = await sql<{ email: string }[]>`
    update app_signup_requests set used_at = ${at}
     where digest = ${digest} and used_at is null and expires_at > ${at}
    returning email`;
  return rows[0];
}

/** The email and the name asked of a link that exists, is unused and has not expired at `at` (it stays unused). */
export async function signupLinkRow(
  sql: Sql,
  digest: string,
  at: Date,
): Promise<{ email: string; name: string | null } | undefined> {
  const rows = await sql<{ email: string; name: string | null }[]>`
    select email, name from app_signup_requests where digest = ${digest} and used_at is null and expires_at > ${at}`;
  return rows[0];
}

/** Deletes requests that expired before `before` (used or not); how many. */
export async function deleteExpiredSignupRequests(sql: Sql, before: Date): Promise<number> {
  const rows = await sql`delete from app_signup_requests where expires_at <= ${before} returning id`;
  return rows.length;
}

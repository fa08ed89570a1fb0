/** Queries of the single-use tenant portal links (`app_portal_links`). */
import type { Queryable as Sql } from '../db/connect.ts';

export async function insertPortalLink(
  sql: Sql,
  input: {
    digest: string;
    owner: string;
    role: 'member' | 'viewer';
    createdBy: string | null;
    at: Date;
    expiresAt: Date;
  },
): Promise<void> {
  await sql`
    insert into app_portal_links (digest, owner, role, created_by, created_at, expires_at)
    values (${input.digest}, ${input.owner}, ${input.role}, ${input.createdBy}, ${input.at}, ${input.expiresAt})`;
}

/**
 * Spends the link: marks it used and answers its owner and role, when it exists, is unused and
 * has not expired at `at`. One conditional update, so of two racing requests exactly one wins.
 */
export async function usePortalLinkRow(
  sql: Sql,
  digest: string,
  at: Date,
): Promise<{ owner: string; role: 'member' | 'viewer' } | undefined> {
  const rows = await sql<{ owner: string; role: 'member' | 'viewer' }[]>`
    update app_portal_links set used_at = ${at}
     where digest = ${digest} and used_at is null and expires_at > ${at}
    returning owner, role`;
  return rows[0];
}

/** Whether the link exists, is unused and has not expired at `at`; nothing is spent. */
export async function portalLinkRowUsable(sql: Sql, digest: string, at: Date): Promise<boolean> {
  const rows = await sql`
    select 1 from app_portal_links where digest = ${digest} and used_at is null and expires_at > ${at}`;
  return rows.length > 0;
}

/**
 * Spends every link of `owner` that would still sign in at `at` (unused, unexpired), as a use
 * would: a link handed out but not yet opened stops working. How many it spent. A link being
 * used at the same moment is spent once, by whichever update takes its row first.
 */
export async function spendOwnerPortalLinks(sql: Sql, owner: string, at: Date): Promise<number> {
  const rows = await sql`
    update app_portal_links set used_at = ${at}
     where owner = ${owner} and used_at is null and expires_at > ${at}
    returning digest`;
  return rows.length;
}

/** Deletes links that expired before `before` (used or not); how many. */
export async function deleteExpiredPortalLinks(sql: Sql, before: Date): Promise<number> {
  const rows = await sql`delete from app_portal_links where expires_at <= ${before} returning digest`;
  return rows.length;
}

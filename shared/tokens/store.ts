/**
 * Queries of the token table (`app_api_tokens`, migrations/005_api_tokens.sql). Small named
 * functions with parameters; the rules are in tokens.ts. A mint and a revocation run in a
 * transaction of their own, so a request answered 503 by its timeout never commits them
 * (shared/db/transaction.ts); recording a token's use is the request's bookkeeping, not what it
 * was asked to do, and stays a statement of its own.
 */
import type { Sql } from '../db/connect.ts';
import { transaction } from '../db/transaction.ts';
import type { Role } from './roles.ts';
import { enabledUserHeld } from '../accounts/user-store.ts';

/** A row of `app_api_tokens` as the driver returns it. */
export interface TokenRow {
  id: string;
  name: string;
  role: Role;
  owner: string | null;
  prefix: string;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
  user_id: string | null;
}

const COLUMNS = 'id, name, role, owner, prefix, created_at, expires_at, last_used_at, revoked_at, user_id';

/**
 * Inserts a token; answers undefined, inserting nothing, when `userId` names a user that is
 * disabled (or gone) by now. The user's row is locked for share while the token goes in, so a
 * disable (which revokes the user's tokens in the transaction that disables it) either waits for
 * this token and revokes it too, or has committed and this mint finds the user disabled: a token
 * minted by a request authenticated just before its user was disabled never outlives the disable.
 */
export async function insertToken(
  sql: Sql,
  input: {
    id: string;
    name: string;
    role: Role;
    owner: string | null;
    prefix: string;
    digest: string;
    expiresInMs: number | null;
    userId: string | null;
  },
): Promise<TokenRow | undefined> {
  const [row] = await transaction(
    sql,
    (tx) => tx<TokenRow[]>`
    with minter as (${enabledUserHeld(tx, input.userId)})
    insert into app_api_tokens (id, name, role, owner, prefix, digest, expires_at, user_id)
    select ${input.id}, ${input.name}, ${input.role}, ${input.owner}, ${input.prefix}, ${input.digest},
           case when ${input.expiresInMs}::bigint is null then null else now() + ${input.expiresInMs}::bigint * interval '1 millisecond' end,
           minter.id
      from minter
    returning ${tx.unsafe(COLUMNS)}`,
  );
  return row;
}

/** Tokens in creation order; revoked ones only when asked; only those user `userId` minted when given; one page when given. */
export function selectTokens(
  sql: Sql,
  options: { includeRevoked: boolean; userId?: string; limit?: number; offset?: number },
): Promise<TokenRow[]> {
  return sql<TokenRow[]>`
    select ${sql.unsafe(COLUMNS)} from app_api_tokens
     where ${options.includeRevoked ? sql`true` : sql`revoked_at is null`}
       and ${options.userId === undefined ? sql`true` : sql`user_id = ${options.userId}`}
     order by created_at, id
     ${options.limit === undefined ? sql`` : sql`limit ${options.limit} offset ${options.offset ?? 0}`}`;
}

/** How many tokens {@link selectTokens} would answer without a page. */
export async function countTokens(sql: Sql, options: { includeRevoked: boolean; userId?: string }): Promise<number> {
  const [row] = await sql<{ count: number }[]>`
    select count(*)::int as count from app_api_tokens
     where ${options.includeRevoked ? sql`true` : sql`revoked_at is null`}
       and ${options.userId === undefined ? sql`true` : sql`user_id = ${options.userId}`}`;
  return row.count;
}

/** The token `id`, whatever its state. */
export async function selectTokenById(sql: Sql, id: string): Promise<TokenRow | undefined> {
  const rows = await sql<TokenRow[]>`select ${sql.unsafe(COLUMNS)} from app_api_tokens where id = ${id}`;
  return rows[0];
}

/** The token whose digest this is, if it is neither revoked nor expired. */
export async function selectUsableByDigest(sql: Sql, digest: string): Promise<TokenRow | undefined> {
  const rows = await sql<TokenRow[]>`
    select ${sql.unsafe(COLUMNS)} from app_api_tokens
     where digest = ${digest} and revoked_at is null and (expires_at is null or expires_at > now())`;
  return rows[0];
}

/** Marks token `id` revoked (keeping the first revocation time); the row, or undefined when there is none. */
export async function revokeRow(sql: Sql, id: string): Promise<TokenRow | undefined> {
  const rows = await transaction(
    sql,
    (tx) => tx<TokenRow[]>`
    update app_api_tokens set revoked_at = coalesce(revoked_at, now())
     where id = ${id}
    returning ${tx.unsafe(COLUMNS)}`,
  );
  return rows[0];
}

/** Records a use of token `id`, at most once per `everyMs` (one write a minute, not one per request). */
export async function touchRow(sql: Sql, id: string, everyMs: number): Promise<void> {
  await sql`
    update app_api_tokens set last_used_at = now()
     where id = ${id} and (last_used_at is null or last_used_at < now() - ${everyMs}::bigint * interval '1 millisecond')`;
}

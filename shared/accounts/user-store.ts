/**
 * Queries of the user table (`app_users`, migrations/007_accounts.sql; its email key, 038). Small named functions
 * with parameters; the rules are in users.ts.
 */
import type { Queryable as Sql } from '../db/connect.ts';
import type { Role } from '../tokens/roles.ts';

export interface UserRow {
  id: string;
  email: string;
  name: string | null;
  role: Role;
  owner: string | null;
  password_hash: string | null;
  disabled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, email, name, role, owner, password_hash, disabled_at, created_at, updated_at';

export async function insertUser(
  sql: Sql,
  input: {
    id: string;
    email: string;
    /** user-fields.ts `emailKey` of the email. */
    emailKey: string;
    name: string | null;
    role: Role;
    owner: string | null;
    passwordHash: string | null;
    at: Date;
  },
): Promise<UserRow | undefined> {
  // no conflict target: a taken key (app_users_email_key) or a taken lower(email) (the index of
  // migrations/007, which a locale may fold further than the key does) both answer no row
  const rows = await sql<UserRow[]>`
    insert into app_users (id, email, email_key, name, role, owner, password_hash, created_at, updated_at)
    values (${input.id}, ${input.email}, ${input.emailKey}, ${input.name}, ${input.role}, ${input.owner}, ${input.passwordHash}, ${input.at}, ${input.at})
    on conflict do nothing
    returning ${sql.unsafe(COLUMNS)}`;
  return rows[0];
}

/**
 * A subquery for a row written on behalf of user `userId` (a session, a token): the user while it
 * is enabled, its row locked for share until the statement's transaction ends, and no row once it
 * is disabled or gone; for no user (`null`), one row with a null id. A disable, which ends the
 * user's sessions and revokes its tokens in the transaction that disables it, then either waits
 * for the write and undoes it too, or has committed and the write finds no row to insert from.
 */
export const enabledUserHeld = (sql: Sql, userId: string | null) =>
  userId === null
    ? sql`select null::text as id`
    : sql`select id from app_users where id = ${userId} and disabled_at is null for share`;

export async function selectUserById(sql: Sql, id: string): Promise<UserRow | undefined> {
  const rows = await sql<UserRow[]>`select ${sql.unsafe(COLUMNS)} from app_users where id = ${id}`;
  return rows[0];
}

/**
 * The user whose email has the key `key` (user-fields.ts `emailKey`), unless a user without key
 * (its email has a key that a user created before it holds: migrations/038) is stored as `email`
 * or as `given` in any ASCII case: that one signs in with its own spelling, as before the key.
 */
export async function selectUserByEmail(
  sql: Sql,
  key: string,
  email: string,
  given = email,
): Promise<UserRow | undefined> {
  const rows = await sql<UserRow[]>`
    select ${sql.unsafe(COLUMNS)} from app_users
     where email_key = ${key}
        or email_key is null and lower(email) in (lower(${email}), lower(${given}))
     order by email_key is null desc, lower(email) = lower(${email}) desc
     limit 1`;
  return rows[0];
}

/** Which users a listing selects: every filter given narrows it. */
export interface UserFilter {
  /** true: enabled users only; false: disabled ones only; absent: both. */
  enabled?: boolean;
  role?: Role;
  /** This owner's users; null: those without owner (admins). */
  owner?: string | null;
  /** Users whose email's key contains this text, given in key form (user-fields.ts `emailKey`): any case, any NFKC spelling. */
  emailContains?: string;
}

/** `like` text matching `text` literally anywhere (its `%`, `_` and `\\` escaped). */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const userWhere = (sql: Sql, filter: UserFilter) => sql`
  where true
  ${filter.enabled === undefined ? sql`` : filter.enabled ? sql`and disabled_at is null` : sql`and disabled_at is not null`}
  ${filter.role === undefined ? sql`` : sql`and role = ${filter.role}`}
  ${filter.owner === undefined ? sql`` : filter.owner === null ? sql`and owner is null` : sql`and owner = ${filter.owner}`}
  ${filter.emailContains === undefined ? sql`` : sql`and coalesce(email_key, lower(email)) like ${containing(filter.emailContains)}`}`;

/**
 * One page of the users `filter` selects, in creation order (ties by id: an order that stays
 * put between pages, read along the index `app_users_created`).
 */
export function selectUsers(
  sql: Sql,
  filter: UserFilter,
  window: { limit: number; offset: number },
): Promise<UserRow[]> {
  return sql<UserRow[]>`
    select ${sql.unsafe(COLUMNS)} from app_users ${userWhere(sql, filter)}
     order by created_at, id limit ${window.limit} offset ${window.offset}`;
}

/** How many users `filter` selects. */
export async function countUsers(sql: Sql, filter: UserFilter): Promise<number> {
  const rows = await sql<{ count: number }[]>`select count(*)::int as count from app_users ${userWhere(sql, filter)}`;
  return rows[0].count;
}

export async function updatePasswordHash(
  sql: Sql,
  id: string,
  passwordHash: string,
  at: Date,
): Promise<UserRow | undefined> {
  const rows = await sql<UserRow[]>`
    update app_users set password_hash = ${passwordHash}, updated_at = ${at} where id = ${id}
    returning ${sql.unsafe(COLUMNS)}`;
  return rows[0];
}

/** Disables (keeping the first time) or enables user `id`. */
export async function updateDisabled(sql: Sql, id: string, disabled: boolean, at: Date): Promise<UserRow | undefined> {
  const rows = await sql<UserRow[]>`
    update app_users
       set disabled_at = ${disabled ? sql`coalesce(disabled_at, ${at})` : sql`null`}, updated_at = ${at}
     where id = ${id}
    returning ${sql.unsafe(COLUMNS)}`;
  return rows[0];
}

/** Revokes every token user `id` minted; answers their ids. */
export async function revokeTokensOfUser(sql: Sql, id: string, at: Date): Promise<string[]> {
  const rows = await sql<
    { id: string }[]
  >`update app_api_tokens set revoked_at = ${at} where user_id = ${id} and revoked_at is null returning id`;
  return rows.map((row) => row.id);
}

/** A user's email and the key stored for it, as `app migrate` checks them (email-keys.ts). */
export interface EmailKeyRow {
  id: string;
  email: string;
  email_key: string | null;
  disabled_at: Date | null;
  created_at: Date;
}

/** Whether `app_users.email_key` exists (migrations/038): a database migrated from another folder has none. */
export async function hasEmailKeyColumn(sql: Sql): Promise<boolean> {
  const [{ present }] = await sql<{ present: boolean }[]>`
    select exists (
      select from pg_attribute
       where attrelid = to_regclass('app_users') and attname = 'email_key' and not attisdropped
    ) as present`;
  return present;
}

/**
 * The users whose stored key SQL may have got other than the application would (the email is
 * not plain printable ASCII, whose key app_email_key gives exactly), or that have none, first
 * created first.
 */
export function selectEmailKeysToCheck(sql: Sql): Promise<EmailKeyRow[]> {
  return sql<EmailKeyRow[]>`
    select id, email, email_key, disabled_at, created_at from app_users
     where email_key is null or email !~ '^[ -~]*$'
     order by created_at, id`;
}

/**
 * Enabled users without an email key once `app migrate` has run: each shares its email, in
 * another case or spelling, with a user created before it (email-keys.ts). None when the table
 * has no key column.
 */
export async function countEnabledUsersSharingEmail(sql: Sql): Promise<number> {
  if (!(await hasEmailKeyColumn(sql))) return 0;
  const [{ count }] = await sql<{ count: number }[]>`
    select count(*)::int as count from app_users where email_key is null and disabled_at is null`;
  return count;
}

/** The user holding email key `key`. */
export async function selectEmailKeyHolder(sql: Sql, key: string): Promise<EmailKeyRow | undefined> {
  const rows = await sql<EmailKeyRow[]>`
    select id, email, email_key, disabled_at, created_at from app_users where email_key = ${key}`;
  return rows[0];
}

/** Stores `key` (null: none) as user `id`'s email key; a key another user holds is a unique violation. */
export async function updateEmailKey(sql: Sql, id: string, key: string | null): Promise<void> {
  await sql`update app_users set email_key = ${key} where id = ${id}`;
}

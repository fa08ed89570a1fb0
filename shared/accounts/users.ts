/**
 * Users: people who sign in with an email and a password. The same functions serve
 * the `users:*` commands, sign-up and the account paths of the web process.
 */
import { conflict, notFound } from '../errors/app-error.ts';
import type { Queryable } from '../db/connect.ts';
import { clip, describeValue } from '../errors/describe-value.ts';
import { isIdText, ulid } from '../webhooks/ids.ts';
import { isRole, ROLES, type Role } from '../tokens/roles.ts';
import type { Config } from '../config/index.ts';
import { pageOffset } from '../db/page-depth.ts';
import { assertOwnerFilter } from '../webhooks/endpoints/fields.ts';
import { authorize, type Actor } from '../access/actor.ts';
import { clockOf, type AccountDeps } from './deps.ts';
import { checkNewPassword, hashPassword } from './passwords.ts';
import { expireLinksOfUser } from './link-store.ts';
import { deleteUserSessions } from './session-store.ts';
import {
  canonicalEmail,
  checkEmail,
  checkName,
  checkRoleAndOwner,
  emailKey,
  invalidUserField,
  MAX_EMAIL_LENGTH,
} from './user-fields.ts';
import {
  insertUser,
  revokeTokensOfUser,
  selectUserByEmail,
  selectUserById,
  selectUsers,
  countUsers,
  updateDisabled,
  type UserFilter,
  updatePasswordHash,
  type UserRow,
} from './user-store.ts';
import { inTransaction, transaction } from '../db/transaction.ts';

/** A user as every face shows it (never its password hash). */
export interface User {
  /** `usr_…` */
  id: string;
  email: string;
  name: string | null;
  role: Role;
  owner: string | null;
  /** Whether a password is set (a user made without one signs in after following its link). */
  hasPassword: boolean;
  disabledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export const toUser = (row: UserRow): User => ({
  id: row.id,
  email: row.email,
  name: row.name,
  role: row.role,
  owner: row.owner,
  hasPassword: row.password_hash !== null,
  disabledAt: row.disabled_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** AppError 404 `APP_USER_NOT_FOUND`. */
export const userNotFound = (idOrEmail: unknown) =>
  notFound(`user ${typeof idOrEmail === 'string' ? clip(idOrEmail) : describeValue(idOrEmail)} does not exist`, {
    code: 'APP_USER_NOT_FOUND',
    data: { user: idOrEmail },
  });

export interface CreateUserInput {
  email: unknown;
  name?: unknown;
  role: unknown;
  owner?: unknown;
  /** Absent: the user has no password until it follows a set-password link. */
  password?: unknown;
}

/**
 * Makes a user for `actor` (an admin, or the operator). Throws 403 `APP_FORBIDDEN` first to a
 * role that may not invite users, then what {@link insertNewUser} throws.
 */
export function createUser(deps: AccountDeps, actor: Actor, input: CreateUserInput): Promise<User> {
  authorize(actor, 'users.invite');
  return insertNewUser(deps, input);
}

/** A user checked and its password hashed, ready to insert ({@link prepareNewUser}). */
export interface PreparedUser {
  id: string;
  email: string;
  name: string | null;
  role: Role;
  owner: string | null;
  passwordHash: string | null;
}

/**
 * Checks a new user's fields and hashes its password, touching no table: the slow part of making
 * a user, done before any transaction holds a connection. Throws 422 `APP_USER_FIELD_INVALID` or
 * `APP_PASSWORD_WEAK`.
 */
export async function prepareNewUser(
  deps: Pick<AccountDeps, 'config'>,
  input: CreateUserInput,
  options: { id?: string } = {},
): Promise<PreparedUser> {
  const email = checkEmail(input.email);
  const name = checkName(input.name);
  const { role, owner } = checkRoleAndOwner(input.role, input.owner);
  const password =
    input.password === undefined || input.password === null
      ? null
      : checkNewPassword(input.password, { minLength: deps.config.auth.passwordMinLength, email });
  const passwordHash = password === null ? null : await hashPassword(password);
  return { id: options.id ?? `usr_${ulid()}`, email, name, role, owner, passwordHash };
}

/**
 * Inserts a prepared user; in the caller's transaction when `deps.sql` is one (a confirmed
 * sign-up spends its link in it). Throws 409 `APP_USER_EMAIL_TAKEN` when another user has that
 * email (in any case).
 */
export async function insertPreparedUser(
  deps: Omit<AccountDeps, 'sql'> & { sql: Queryable },
  user: PreparedUser,
): Promise<User> {
  // in a transaction: a request answered 503 by its timeout never commits it (shared/db/transaction.ts)
  const row = await inTransaction(deps.sql, (tx) =>
    insertUser(tx, { ...user, emailKey: emailKey(user.email), at: clockOf(deps) }),
  );
  if (!row)
    throw conflict(`a user with the email ${clip(user.email)} already exists`, {
      code: 'APP_USER_EMAIL_TAKEN',
      data: { field: 'email' },
    });
  deps.log.info({ userId: row.id, role: user.role, owner: user.owner }, 'user created');
  return toUser(row);
}

/**
 * Makes a user, whoever asks (sign-up decides for itself who may). Throws 422
 * `APP_USER_FIELD_INVALID` or `APP_PASSWORD_WEAK`, 409 `APP_USER_EMAIL_TAKEN` when another user
 * has that email (in any case).
 */
export async function insertNewUser(
  deps: AccountDeps,
  input: CreateUserInput,
  options: { id?: string } = {},
): Promise<User> {
  return insertPreparedUser(deps, await prepareNewUser(deps, input, options));
}

/** The user with this id (`usr_…`) or email (any case). Throws 404 `APP_USER_NOT_FOUND`. */
export async function findUser(deps: Pick<AccountDeps, 'sql'>, idOrEmail: unknown): Promise<User> {
  return toUser(await findUserRow(deps, idOrEmail));
}

/**
 * The user an email names, in any spelling of it (user-fields.ts `canonicalEmail`, any case in
 * any script): the one holding its key in the database (migrations/038). A row the database's
 * `lower()` matches but {@link emailKey} tells apart (a locale's folding, as of a dotted capital
 * I, beyond Unicode's own) is not this email's: every spelling that reaches an account then
 * counts toward that account's one sign-in lockout.
 */
export async function selectUserNamed(sql: Queryable, email: string): Promise<UserRow | undefined> {
  const row = await selectUserByEmail(sql, emailKey(email), canonicalEmail(email), email.trim());
  return row && emailKey(row.email) === emailKey(email) ? row : undefined;
}

export async function findUserRow(deps: Pick<AccountDeps, 'sql'>, idOrEmail: unknown): Promise<UserRow> {
  if (typeof idOrEmail !== 'string' || idOrEmail.length === 0 || idOrEmail.length > 320) throw userNotFound(idOrEmail);
  const row = idOrEmail.includes('@')
    ? await selectUserNamed(deps.sql, idOrEmail)
    : isIdText(idOrEmail)
      ? await selectUserById(deps.sql, idOrEmail)
      : undefined;
  if (!row) throw userNotFound(idOrEmail);
  return row;
}

/** A listing of users: one page, and the filters the console and `users:list` offer. */
export interface UserQuery {
  page: number;
  perPage: number;
  /** true: enabled users only; false: disabled ones only; absent: both. */
  enabled?: boolean;
  /** Only users of this role (`admin`, `member`, `viewer`). */
  role?: unknown;
  /** Only this owner's users; null: those without owner (the admins). */
  owner?: unknown;
  /** Only users whose email contains this text, in any case. */
  email?: unknown;
}

/** The filters a page past the paging bound names, for a caller to narrow the listing by instead. */
const USER_FILTERS = ['enabled', 'role', 'owner', 'email'] as const;

/** A listing's filter as the store takes it; throws 422 `APP_USER_FIELD_INVALID` or `APP_WEBHOOK_OWNER_INVALID`. */
function userFilter(query: Omit<UserQuery, 'page' | 'perPage'>): UserFilter {
  if (query.role !== undefined && !isRole(query.role))
    throw invalidUserField('role', `must be one of ${ROLES.join(', ')}`);
  if (query.email !== undefined && (typeof query.email !== 'string' || query.email.length > MAX_EMAIL_LENGTH))
    throw invalidUserField('email', `must be text of at most ${MAX_EMAIL_LENGTH} characters`);
  const email = typeof query.email === 'string' ? query.email.trim() : '';
  return {
    ...(query.enabled === undefined ? {} : { enabled: query.enabled }),
    ...(query.role === undefined ? {} : { role: query.role as Role }),
    ...(query.owner === undefined ? {} : { owner: assertOwnerFilter(query.owner) }),
    ...(email === '' ? {} : { emailContains: emailKey(email) }),
  };
}

/**
 * One page of the users `query` selects, in creation order (ties by id, so each page follows on
 * from the one before), with how many it selects in all. A deployment whose tenants each have
 * accounts holds tens of thousands of users: every face (the console's Users page,
 * `users:list`) lists them a page at a time. A page past `api.maxPageOffset` is 422
 * `APP_PAGE_TOO_DEEP` (shared/db/page-depth.ts), naming the filters that narrow the listing.
 * Throws 403 `APP_FORBIDDEN` first to a grant that may not list users.
 */
export async function listUsers(
  deps: { sql: Queryable; config: Pick<Config, 'api'> },
  actor: Actor,
  query: UserQuery,
): Promise<{ records: User[]; total: number }> {
  authorize(actor, 'users.read');
  const filter = userFilter(query);
  const offset = pageOffset(query.page, query.perPage, deps.config.api.maxPageOffset, USER_FILTERS);
  const [rows, total] = await Promise.all([
    selectUsers(deps.sql, filter, { limit: query.perPage, offset }),
    countUsers(deps.sql, filter),
  ]);
  return { records: rows.map(toUser), total };
}

/**
 * Disables a user: it can no longer sign in, every session of it ends and every token it minted
 * is revoked, at once in every process. Enabling gives sign-in back (not the tokens). Throws 403
 * `APP_FORBIDDEN` first to a role that may not, 404 `APP_USER_NOT_FOUND`, and 409
 * `APP_USER_DISABLE_SELF` to a signed-in admin disabling itself: that would end the very session
 * it asked in and leave it no way back but another admin or the CLI.
 */
export async function setUserDisabled(
  deps: AccountDeps,
  actor: Actor,
  idOrEmail: unknown,
  disabled: boolean,
): Promise<User> {
  authorize(actor, disabled ? 'users.disable' : 'users.enable');
  const found = await findUserRow(deps, idOrEmail);
  if (disabled && actor.userId === found.id)
    throw conflict('you may not disable yourself: another admin may, or the operator with `app users:disable`', {
      code: 'APP_USER_DISABLE_SELF',
      data: { user: found.id },
    });
  const at = clockOf(deps);
  let revoked: string[] = [];
  const row = await transaction(deps.sql, async (tx) => {
    const updated = await updateDisabled(tx, found.id, disabled, at);
    if (disabled) {
      await deleteUserSessions(tx, found.id);
      revoked = await revokeTokensOfUser(tx, found.id, at);
    }
    return updated;
  });
  // committed: this process's token cache drops them now, the others when the notices arrive
  if (revoked.length > 0) deps.tokenCache?.forget(revoked);
  if (!row) throw userNotFound(idOrEmail);
  deps.log.info({ userId: row.id }, disabled ? 'user disabled' : 'user enabled');
  return toUser(row);
}

/**
 * Sets a user's password (already checked against the rules), ends every session of it (a
 * password change starts the changer's anew: account-flows.ts), and spends its unused
 * set-password links: a reset asked before the password was changed (perhaps by whoever the
 * change keeps out) no longer sets it. Runs in the caller's transaction.
 */
export async function storePassword(
  deps: Pick<AccountDeps, 'now'> & { sql: Queryable },
  userId: string,
  password: string,
): Promise<User> {
  const at = clockOf(deps);
  const row = await updatePasswordHash(deps.sql, userId, await hashPassword(password), at);
  if (!row) throw userNotFound(userId);
  await deleteUserSessions(deps.sql, userId);
  await expireLinksOfUser(deps.sql, userId, at);
  return toUser(row);
}

/** What the API answers of a user (sign-in answers, page objects, `users:* --json`). */
export const publicUser = (user: User) => ({
  id: user.id,
  email: user.email,
  name: user.name,
  role: user.role,
  owner: user.owner,
  hasPassword: user.hasPassword,
  disabledAt: user.disabledAt,
  createdAt: user.createdAt,
});

/**
 * What the account paths do beyond signing in: self-service sign-up and a password
 * change by the signed-in user.
 */
import { forbidden, unauthorized } from '../errors/app-error.ts';
import { ulid } from '../webhooks/ids.ts';
import type { AccountDeps } from './deps.ts';
import { checkNewPassword, verifyPassword } from './passwords.ts';
import { selectUserById } from './user-store.ts';
import { insertNewUser, storePassword, userNotFound, type User } from './users.ts';

/**
 * `POST /register`, `POST /signup` (with `auth.signup` on): a new `member` whose tenant is its own
 * (owner = its user id). Throws 403 `APP_SIGNUP_CLOSED` when sign-up is off, and what
 * {@link insertNewUser} throws.
 */
export async function signUp(
  deps: AccountDeps,
  input: { email: unknown; password: unknown; name?: unknown },
): Promise<User> {
  if (!deps.config.auth.signup)
    throw forbidden('self-service sign-up is off on this service; ask an operator for an account', {
      code: 'APP_SIGNUP_CLOSED',
    });
  const id = `usr_${ulid()}`;
  return insertNewUser(
    deps,
    { email: input.email, name: input.name, password: input.password ?? '', role: 'member', owner: id },
    { id },
  );
}

/**
 * `POST /password`: the signed-in user changes its password, giving the current one. Every other
 * session of the user ends; `sessionId` (the one asking) stays. Throws 401 `APP_AUTH_FAILED` for
 * a wrong current password, 422 `APP_PASSWORD_WEAK`.
 */
export async function changePassword(
  deps: AccountDeps,
  userId: string,
  input: { currentPassword: unknown; newPassword: unknown },
  sessionId?: string,
): Promise<User> {
  const row = await selectUserById(deps.sql, userId);
  if (!row) throw userNotFound(userId);
  if (typeof input.currentPassword !== 'string' || !(await verifyPassword(row.password_hash, input.currentPassword))) {
    throw unauthorized('the current password is wrong', {
      code: 'APP_AUTH_FAILED',
      data: { field: 'currentPassword' },
    });
  }
  const password = checkNewPassword(input.newPassword, {
    minLength: deps.config.auth.passwordMinLength,
    email: row.email,
  });
  const user = await deps.sql.begin((tx) =>
    storePassword({ ...deps, sql: tx }, userId, password, { keepSession: sessionId }),
  );
  deps.log.info({ userId }, 'password changed');
  return user;
}

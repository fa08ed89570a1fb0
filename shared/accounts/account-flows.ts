/**
 * What the account paths do beyond signing in: self-service sign-up without confirmation
 * (`auth.signupConfirm` off) and a password change by the signed-in user.
 */
import { forbidden, unauthorized } from '../errors/app-error.ts';
import { ulid } from '../webhooks/ids.ts';
import type { AccountDeps } from './deps.ts';
import { checkNewPassword, verifyPassword } from './passwords.ts';
import { startSession, type StartedSession } from './sessions.ts';
import { selectUserById } from './user-store.ts';
import { insertNewUser, storePassword, userNotFound, type User } from './users.ts';
import { transaction } from '../db/transaction.ts';

/** Throws 403 `APP_SIGNUP_CLOSED` when self-service sign-up (`auth.signup`) is off. */
export function assertSignUpOpen(config: AccountDeps['config']): void {
  if (!config.auth.signup)
    throw forbidden('self-service sign-up is off on this service; ask an operator for an account', {
      code: 'APP_SIGNUP_CLOSED',
    });
}

/**
 * `POST /register`, `POST /signup` with `auth.signup` on and `auth.signupConfirm` off (with it on,
 * signup-links.ts makes the account once its mailed link is used): a new `member` whose tenant is its own
 * (owner = its user id). Throws 403 `APP_SIGNUP_CLOSED` when sign-up is off, and what
 * {@link insertNewUser} throws.
 */
export async function signUp(
  deps: AccountDeps,
  input: { email: unknown; password: unknown; name?: unknown },
): Promise<User> {
  assertSignUpOpen(deps.config);
  const id = `usr_${ulid()}`;
  return insertNewUser(
    deps,
    { email: input.email, name: input.name, password: input.password ?? '', role: 'member', owner: id },
    { id },
  );
}

/**
 * `POST /password`: the signed-in user changes its password, giving the current one. Every
 * session of the user ends, the one asking included, and (in the same transaction) a new session
 * starts in its place: the caller's browser stays signed in under a new id, cookie and CSRF
 * secret, while a copy of the old cookie (taken by whoever the new password is meant to keep
 * out) is refused. Throws 401 `APP_AUTH_FAILED` for a wrong current password, 422
 * `APP_PASSWORD_WEAK`.
 */
export async function changePassword(
  deps: AccountDeps,
  userId: string,
  input: { currentPassword: unknown; newPassword: unknown },
): Promise<{ user: User; session: StartedSession }> {
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
  const changed = await transaction(deps.sql, async (tx) => {
    const user = await storePassword({ ...deps, sql: tx }, userId, password); // ends every session of the user
    return { user, session: await startSession(deps, userId, { sql: tx }) };
  });
  deps.log.info({ userId, sessionId: changed.session.id }, 'password changed; the session renewed');
  return changed;
}

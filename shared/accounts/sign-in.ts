/**
 * Checking a password at sign-in, with the lockout. A wrong email and a wrong password
 * answer the same 401 `APP_AUTH_FAILED`, in about the same time (an unknown email, or a user who
 * has no password yet, still costs one argon2 verification); a locked account answers 429 `APP_AUTH_LOCKED` with `Retry-After`, even
 * with the right password, until the lock expires or the password is reset.
 */
import { tooManyRequests, unauthorized } from '../errors/app-error.ts';
import { sharedUnavailable } from '../stores/errors.ts';
import type { AccountDeps } from './deps.ts';
import { clearFailures, countFailure, lockedFor } from './lockout.ts';
import { MAX_PASSWORD_LENGTH, verifyNothing, verifyPassword } from './passwords.ts';
import { selectUserNamed, toUser, type User } from './users.ts';

/** The one refusal of a sign-in, whatever was wrong (also a session whose user was disabled as it started). */
export const failed = () => unauthorized('the email or the password is wrong', { code: 'APP_AUTH_FAILED' });

const locked = (ms: number) => {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  return tooManyRequests(
    `sign-in to this account is locked after too many wrong passwords; try again in ${seconds} s or reset the password`,
    {
      code: 'APP_AUTH_LOCKED',
      data: { retryAfter: seconds },
      headers: { 'Retry-After': String(seconds) },
    },
  );
};

/** A lockout store call; a store that does not answer refuses the sign-in (503), it never skips the count. */
async function lockoutCall<T>(what: () => Promise<T>): Promise<T> {
  try {
    return await what();
  } catch (error) {
    throw sharedUnavailable('sign-in lockout', error);
  }
}

/** The enabled user with this email and password. Throws 401 `APP_AUTH_FAILED`, 429 `APP_AUTH_LOCKED`. */
export async function checkCredentials(deps: AccountDeps, input: { email: unknown; password: unknown }): Promise<User> {
  const { email, password } = input;
  if (
    typeof email !== 'string' ||
    typeof password !== 'string' ||
    email.length === 0 ||
    email.length > 320 ||
    password.length > MAX_PASSWORD_LENGTH * 4
  ) {
    throw failed();
  }
  const settings = deps.config.auth.lockout;
  const store = settings ? deps.lockouts : undefined;
  if (settings && store) {
    const ms = await lockoutCall(() => lockedFor(store, email, deps.now()));
    if (ms > 0) throw locked(ms);
  }
  const row = await selectUserNamed(deps.sql, email);
  // a user with no password yet (invited, its link not used) costs a verification too: answered at
  // once, it would tell which emails were invited
  const ok = row?.password_hash ? await verifyPassword(row.password_hash, password) : await verifyNothing(password);
  if (!row || !ok || row.disabled_at !== null) {
    if (settings && store) {
      const ms = await lockoutCall(() => countFailure(store, email, settings, deps.now()));
      if (ms > 0) throw locked(ms);
    }
    deps.log.info({ userId: row?.id }, 'sign-in refused');
    throw failed();
  }
  if (settings && store) await lockoutCall(() => clearFailures(store, email, settings));
  return toUser(row);
}

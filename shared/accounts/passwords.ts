/**
 * Password hashing and the password rules. Hashes are argon2id PHC strings made by
 * `@node-rs/argon2` (prebuilt, nothing compiled at install) with the parameters below, the
 * first of OWASP's recommended argon2id settings (19 MiB of memory, 2 passes, 1 lane); a hash
 * made with other parameters still verifies (they are read from the string), so the numbers
 * can be raised later without signing anybody out.
 */
import { hash, verify } from '@node-rs/argon2';
import { unprocessable } from '../errors/app-error.ts';
import { isCommonPassword } from './common-passwords.ts';

export const ARGON2_PARAMETERS = Object.freeze({
  algorithm: 2 /* Algorithm.Argon2id (a const enum, not importable here) */,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
});

/** Longest password accepted: argon2 takes any length, but a megabyte of it is a way to burn CPU. */
export const MAX_PASSWORD_LENGTH = 256;

/**
 * A password in the spelling it is hashed in: Unicode NFKC, so that the same password typed on a
 * system that composes accents and on one that does not (or with fullwidth forms) is one password.
 */
const spelling = (password: string): string => password.normalize('NFKC');

export const hashPassword = (password: string): Promise<string> => hash(spelling(password), ARGON2_PARAMETERS);

const verifies = async (stored: string, password: string): Promise<boolean> => {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
};

/**
 * Whether `password` matches `stored`; a missing or unreadable hash never matches. A hash made
 * before passwords were normalized holds the password as typed: that spelling is tried too.
 */
export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  if (!stored) return false;
  const normalized = spelling(password);
  if (await verifies(stored, normalized)) return true;
  return normalized !== password && verifies(stored, password);
}

let decoy: Promise<string> | undefined;

/**
 * Spends the time of one verification without any account behind it, so that a sign-in with
 * an unknown email answers in about the time a wrong password takes.
 */
export async function verifyNothing(password: string): Promise<false> {
  decoy ??= hashPassword('a password nobody has, hashed once per process');
  await verifyPassword(await decoy, password);
  return false;
}

/** AppError 422 `APP_PASSWORD_WEAK` with the reason in `data`. */
const weak = (reason: string) =>
  unprocessable(`the password is refused: ${reason}`, {
    code: 'APP_PASSWORD_WEAK',
    data: { field: 'password', reason },
  });

/**
 * Checks a new password, in the spelling it is hashed in, against the rules: a string of
 * `minLength` to 256 characters (counted as code points), not one of the most common passwords,
 * not the account's email. Throws 422 `APP_PASSWORD_WEAK` naming the rule.
 */
export function checkNewPassword(password: unknown, options: { minLength: number; email?: string }): string {
  if (typeof password !== 'string') throw weak('must be a string');
  const hashed = spelling(password); // what is checked is what is stored
  const length = [...hashed].length;
  if (length < options.minLength) throw weak(`must be at least ${options.minLength} characters`);
  if (length > MAX_PASSWORD_LENGTH) throw weak(`must be at most ${MAX_PASSWORD_LENGTH} characters`);
  if (isCommonPassword(hashed)) throw weak('is one of the most common passwords');
  if (options.email && hashed.trim().toLowerCase() === options.email.toLowerCase())
    throw weak('must not be the email address');
  return password;
}

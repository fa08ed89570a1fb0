/**
 * The most common passwords (about 50,000, from the `@zxcvbn-ts/language-common` dictionary,
 * itself drawn from leaked password lists), read once on first use. Compared without regard to
 * case: `Password123` is as guessable as `password123`.
 */
import { dictionary } from '@zxcvbn-ts/language-common';

let common: Set<string> | undefined;

export function isCommonPassword(password: string): boolean {
  common ??= new Set(dictionary['passwords-common'].map((word) => word.toLowerCase()));
  return common.has(password.toLowerCase());
}

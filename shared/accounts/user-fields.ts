/**
 * The fields of a user as given by a caller (CLI, sign-up, a later admin API), checked once here.
 * Refusals are 422 `APP_USER_FIELD_INVALID` naming the field.
 */
import { unprocessable } from '../errors/app-error.ts';
import { isStoredAsGiven } from '../db/storable-text.ts';
import { hasControlCharacter } from '../security/control-characters.ts';
import { roleOwnerProblem, type Role } from '../tokens/roles.ts';
import { assertOwner } from '../webhooks/endpoints/fields.ts';

export const MAX_EMAIL_LENGTH = 254;
export const MAX_USER_NAME_LENGTH = 100;

/** AppError 422 `APP_USER_FIELD_INVALID` naming the field. */
export const invalidUserField = (field: string, reason: string) =>
  unprocessable(`invalid user ${field}: ${reason}`, { code: 'APP_USER_FIELD_INVALID', data: { field, reason } });

/**
 * An email in the one spelling the service stores and looks up: trimmed, in Unicode NFKC form.
 * Look-alike spellings of one address (fullwidth letters, compatibility characters, decomposed
 * accents) are then one address: nobody registers a second account that reads like another's,
 * and every spelling signs in to the one account.
 */
export const canonicalEmail = (text: string): string => text.trim().normalize('NFKC');

/** What tells two emails apart as accounts: the canonical spelling in lower case (the sign-in lockout counts per key). */
export const emailKey = (text: string): string => canonicalEmail(text).toLowerCase();

/**
 * One address: one `@` with text on both sides, no spaces, none of the characters a mail header
 * reads as structure (`,` `;` a list, `<` `>` an angle address, `"` `(` `)` `[` `]` `\` `:`
 * quoting, comments and groups), so a mailer sent it cannot read it as several addresses or one
 * other than shown; a domain with no empty label.
 */
const ADDRESS = /^[^\s@,;<>"()[\]\\:]+@[^\s@,;<>"()[\]\\:.]+(?:\.[^\s@,;<>"()[\]\\:.]+)*$/;

/**
 * An email address in its canonical spelling ({@link canonicalEmail}): at most 254 characters,
 * one address ({@link ADDRESS}), a domain with no empty label (`example.com.`, with its trailing
 * dot, names the host `example.com` does, so it would be a second account for one mailbox).
 */
export function checkEmail(value: unknown): string {
  if (typeof value !== 'string') throw invalidUserField('email', 'must be a string');
  const email = canonicalEmail(value);
  if (email.length === 0) throw invalidUserField('email', 'must not be empty');
  if (email.length > MAX_EMAIL_LENGTH)
    throw invalidUserField('email', `must be at most ${MAX_EMAIL_LENGTH} characters`);
  if (hasControlCharacter(email) || !isStoredAsGiven(email) || !ADDRESS.test(email))
    throw invalidUserField('email', 'must look like name@example.com');
  return email;
}

/** An optional display name: absent, null or empty gives null. */
export function checkName(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalidUserField('name', 'must be a string');
  const name = value.trim();
  if (name.length === 0) return null;
  if (name.length > MAX_USER_NAME_LENGTH)
    throw invalidUserField('name', `must be at most ${MAX_USER_NAME_LENGTH} characters`);
  if (hasControlCharacter(name) || !isStoredAsGiven(name))
    throw invalidUserField('name', 'must not contain control characters or lone surrogates');
  return name;
}

/** Role and owner together: members and viewers belong to one owner, admins to none. */
export function checkRoleAndOwner(role: unknown, owner: unknown): { role: Role; owner: string | null } {
  const checkedOwner = assertOwner(owner);
  const problem = roleOwnerProblem(role, checkedOwner, 'user');
  if (problem) throw invalidUserField(problem.field, problem.reason);
  return { role: role as Role, owner: checkedOwner };
}

/**
 * CSRF tokens: a token is `<salt>.<HMAC-SHA256(secret, salt)>` in base64url, made from
 * a secret the client never sees as is: the session's (signed-in browsers) or the one in the
 * anonymous `app_csrf` cookie (forms shown before sign-in). A new salt per token keeps tokens
 * from repeating in pages (BREACH); any token made from the secret is valid for it.
 *
 * A token rendered into a form carries a third part, `<salt>.<mac>.<form key>`: a fresh random
 * key per rendered form, which the console reads to act once per form however often the
 * browser sends it (api/console/form-once.ts). The key is not covered by the MAC: it only
 * names a submission within the session (a caller may choose its own), and grants nothing.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const mac = (secret: string, salt: string) => createHmac('sha256', secret).update(salt, 'utf8').digest('base64url');

/** What a form key may be: base64url, 1 to 64 characters. */
const FORM_KEY = /^[A-Za-z0-9_-]{1,64}$/;

export function createCsrfToken(secret: string): string {
  const salt = randomBytes(12).toString('base64url');
  return `${salt}.${mac(secret, salt)}`;
}

/** A token for one rendered form: a CSRF token with a fresh form key. */
export function createFormToken(secret: string): string {
  return `${createCsrfToken(secret)}.${randomBytes(12).toString('base64url')}`;
}

/** Splits `<salt>.<mac>[.<form key>]`; undefined when the shape is not that. */
function partsOf(token: string): { salt: string; mac: string; formKey?: string } | undefined {
  const [salt, given, formKey, ...rest] = token.split('.');
  if (!salt || !given || rest.length > 0) return undefined;
  if (formKey !== undefined && !FORM_KEY.test(formKey)) return undefined;
  return { salt, mac: given, ...(formKey === undefined ? {} : { formKey }) };
}

export function verifyCsrfToken(secret: string | undefined, token: unknown): boolean {
  if (!secret || typeof token !== 'string' || token.length > 200) return false;
  const parts = partsOf(token);
  if (!parts) return false;
  const expected = Buffer.from(mac(secret, parts.salt));
  const given = Buffer.from(parts.mac);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The form key of a token (its third part), or undefined: a plain token names no form. */
export function formKeyOf(token: unknown): string | undefined {
  return typeof token === 'string' && token.length <= 200 ? partsOf(token)?.formKey : undefined;
}

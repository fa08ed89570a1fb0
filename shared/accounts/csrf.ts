/**
 * CSRF tokens: a token is `<salt>.<HMAC-SHA256(secret, salt)>` in base64url, made from
 * a secret the client never sees as is: the session's (signed-in browsers) or the one in the
 * anonymous `app_csrf` cookie (forms shown before sign-in). A new salt per token keeps tokens
 * from repeating in pages (BREACH); any token made from the secret is valid for it.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const mac = (secret: string, salt: string) => createHmac('sha256', secret).update(salt, 'utf8').digest('base64url');

export function createCsrfToken(secret: string): string {
  const salt = randomBytes(12).toString('base64url');
  return `${salt}.${mac(secret, salt)}`;
}

export function verifyCsrfToken(secret: string | undefined, token: unknown): boolean {
  if (!secret || typeof token !== 'string' || token.length > 200) return false;
  const dot = token.indexOf('.');
  if (dot <= 0) return false;
  const expected = Buffer.from(mac(secret, token.slice(0, dot)));
  const given = Buffer.from(token.slice(dot + 1));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

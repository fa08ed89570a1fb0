/**
 * Random secrets handed to browsers and mailboxes (session cookies, password links), and the
 * digests stored in their place: 256 random bits each, so a SHA-256 digest is enough (nothing
 * to brute-force) and a copy of the database holds nothing usable.
 */
import { createHash, randomBytes } from 'node:crypto';

/** 43 base64url characters (32 random bytes), with an optional recognisable prefix. */
export const newSecret = (prefix = ''): string => prefix + randomBytes(32).toString('base64url');

export const secretDigest = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** Whether `text` could be a secret made by {@link newSecret} with `prefix` (checked before any lookup). */
export const looksLikeSecret = (text: unknown, prefix = ''): text is string =>
  typeof text === 'string' &&
  text.length === prefix.length + 43 &&
  text.startsWith(prefix) &&
  /^[A-Za-z0-9_-]{43}$/.test(text.slice(prefix.length));

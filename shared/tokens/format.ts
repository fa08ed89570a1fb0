/**
 * The text of an API token: `app_tok_` + 43 base64url characters (32 random bytes). The fixed
 * prefix lets secret scanners and people recognise a leaked token; only the SHA-256 digest of
 * the whole text is stored, so the database never holds a usable token. A digest (not a slow
 * password hash) is enough: the token has 256 random bits, nothing to guess or brute-force.
 */
import { createHash, randomBytes } from 'node:crypto';

export const TOKEN_PREFIX = 'app_tok_';

const SHAPE = /^app_tok_[A-Za-z0-9_-]{43}$/;

/** Characters of a token kept in clear (the prefix and 4 more) to recognise it in listings. */
export const SHOWN_PREFIX_LENGTH = TOKEN_PREFIX.length + 4;

/** A new token text. */
export const generateToken = (): string => TOKEN_PREFIX + randomBytes(32).toString('base64url');

/** Whether `text` has the shape of a token (checked before any database lookup). */
export const looksLikeToken = (text: unknown): text is string => typeof text === 'string' && SHAPE.test(text);

/** The stored digest of a token: hex SHA-256 of its text. */
export const tokenDigest = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** What listings show of a token. */
export const shownPrefix = (text: string): string => text.slice(0, SHOWN_PREFIX_LENGTH);

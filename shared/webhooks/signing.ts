/**
 * Standard Webhooks signing and verification (docs/receiving.md, for receivers).
 *
 * Signed content is `<webhook-id>.<webhook-timestamp>.<raw body>` as UTF-8 bytes. Two schemes:
 * - symmetric (the default): HMAC-SHA256 over it, base64, prefixed `v1,`; the key is the
 *   base64-decoded part of the secret after `whsec_`;
 * - asymmetric (`signing: "ed25519"`): an Ed25519 signature over it, base64, prefixed `v1a,`;
 *   the service signs with a private key `whsk_<base64 PKCS#8>` (kept sealed, never shown) and
 *   shows the receiver its public key `whpk_<base64 of the 32 raw bytes>`.
 * This file imports nothing from the project but the error type, so a receiver can take it alone.
 */
import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  createSecretKey,
  generateKeyPairSync,
  randomBytes,
  sign as signBytes,
  timingSafeEqual,
  verify as verifyBytes,
  type KeyObject,
} from 'node:crypto';
import { badRequest, internal } from '../errors/app-error.ts';

const SECRET_PREFIX = 'whsec_';
const SCHEME = 'v1';
const PRIVATE_KEY_PREFIX = 'whsk_';
const PUBLIC_KEY_PREFIX = 'whpk_';
const ASYMMETRIC_SCHEME = 'v1a';
/** DER prefix of an Ed25519 public key in SPKI form; the 32 raw key bytes follow it. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** How an endpoint's deliveries are signed. */
export const SIGNING_SCHEMES = ['hmac-sha256', 'ed25519'] as const;
export type SigningScheme = (typeof SIGNING_SCHEMES)[number];
/** How far `webhook-timestamp` may be from a receiver's clock (Standard Webhooks' default). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const INTEGER_SECONDS = /^[0-9]{1,15}$/;

/** A raw request body: the exact text or bytes that were (or will be) sent. */
export type RawBody = string | Uint8Array;

/** Header names of one signed delivery. */
export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** Headers as a receiver has them: a plain object (Node's `req.headers`) or a fetch `Headers`. */
export type IncomingHeaders =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/** Why `verify` refused; stable strings a receiver may log or branch on. */
export type VerifyFailureReason =
  | 'missing-header'
  | 'invalid-timestamp'
  | 'timestamp-too-old'
  | 'timestamp-too-new'
  | 'no-matching-signature';

export type VerifyResult = { ok: true } | { ok: false; reason: VerifyFailureReason };

interface SignInput {
  /** The delivery id (`webhook-id`), identical on every attempt. */
  id: string;
  /** Integer seconds since the epoch of this attempt (`webhook-timestamp`). */
  timestamp: number;
  /** The raw body exactly as sent. */
  body: RawBody;
}

/**
 * A new signing secret: `whsec_` followed by base64 of 32 random bytes (a 256-bit key, the
 * HMAC-SHA256 block-size-safe length the Standard Webhooks libraries generate).
 */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** A new Ed25519 signing key: `whsk_` + base64 of its PKCS#8 DER form (kept sealed by the service). */
export function generateSigningKey(): string {
  const { privateKey } = generateKeyPairSync('ed25519');
  return PRIVATE_KEY_PREFIX + privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
}

/** A new secret of `scheme`: a `whsec_` secret, or a `whsk_` Ed25519 private key. */
export const generateSecretFor = (scheme: SigningScheme): string =>
  scheme === 'ed25519' ? generateSigningKey() : generateSecret();

const isPrivateKey = (secret: string) => secret.startsWith(PRIVATE_KEY_PREFIX);

function privateKeyOf(secret: string): KeyObject {
  try {
    return createPrivateKey({
      key: Buffer.from(secret.slice(PRIVATE_KEY_PREFIX.length), 'base64'),
      format: 'der',
      type: 'pkcs8',
    });
  } catch {
    throw badRequest('webhook signing key is not `whsk_` followed by a base64 Ed25519 key', {
      code: 'APP_WEBHOOK_SECRET_INVALID',
    });
  }
}

/** The public key of a `whsk_` signing key, as receivers are given it: `whpk_` + base64 of its 32 bytes. */
export function publicKeyOf(secret: string): string {
  const spki = createPublicKey(privateKeyOf(secret)).export({ format: 'der', type: 'spki' });
  return PUBLIC_KEY_PREFIX + spki.subarray(ED25519_SPKI_PREFIX.length).toString('base64');
}

/** What a receiver is shown of a secret: a `whsec_` secret as it is, a signing key as its public key. */
export const shownSecret = (secret: string): string => (isPrivateKey(secret) ? publicKeyOf(secret) : secret);

/** The Ed25519 public key of a `whpk_` text. Throws 400 `APP_WEBHOOK_SECRET_INVALID`. */
function publicKeyFrom(text: string): KeyObject {
  const raw = Buffer.from(text.slice(PUBLIC_KEY_PREFIX.length), 'base64');
  if (raw.length !== 32)
    throw badRequest('webhook public key is not `whpk_` followed by base64 of 32 bytes', {
      code: 'APP_WEBHOOK_SECRET_INVALID',
    });
  return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
}

const signedContent = (id: string, timestamp: number | string, body: RawBody): Buffer =>
  Buffer.concat([
    Buffer.from(`${id}.${timestamp}.`, 'utf8'),
    typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body),
  ]);

/**
 * The HMAC key of a secret: the base64-decoded text after `whsec_`. The prefix is only a label,
 * so a secret without it is accepted too (as the `standardwebhooks` library does). Throws
 * AppError 400 `APP_WEBHOOK_SECRET_INVALID` for an empty key or text that is not base64.
 */
export function secretKey(secret: string): Buffer {
  if (typeof secret !== 'string') {
    throw badRequest('webhook secret must be a string', { code: 'APP_WEBHOOK_SECRET_INVALID' });
  }
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  // Buffer.from(…, 'base64') skips characters it does not know, so check the text first.
  if (encoded.length === 0 || !BASE64.test(encoded) || encoded.replace(/=+$/, '').length % 4 === 1) {
    throw badRequest('webhook secret is not `whsec_` followed by a base64 key', {
      code: 'APP_WEBHOOK_SECRET_INVALID',
    });
  }
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) {
    throw badRequest('webhook secret has an empty key', { code: 'APP_WEBHOOK_SECRET_INVALID' });
  }
  return key;
}

function assertTimestamp(timestamp: number): void {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw internal(`webhook timestamp must be integer seconds since the epoch, got ${String(timestamp)}`);
  }
}

/** Most secrets whose HMAC key is kept ready (`hmacKey`); past it the cache starts again. */
const HMAC_KEYS_KEPT = 1024;
const hmacKeys = new Map<string, KeyObject>();

/**
 * The HMAC key of a `whsec_` secret as a KeyObject, parsed once per process: Node prepares a raw
 * Buffer key anew for every HMAC, which costs several times the HMAC of a small body, and the
 * worker signs with the same few secrets thousands of times a second.
 */
function hmacKey(secret: string): KeyObject {
  let key = hmacKeys.get(secret);
  if (key === undefined) {
    key = createSecretKey(secretKey(secret));
    if (hmacKeys.size >= HMAC_KEYS_KEPT) hmacKeys.clear();
    hmacKeys.set(secret, key);
  }
  return key;
}

function digest(key: KeyObject, id: string, timestamp: number | string, body: RawBody): Buffer {
  const hmac = createHmac('sha256', key);
  hmac.update(`${id}.${timestamp}.`, 'utf8');
  // Bytes are signed as they are (no decode/re-encode); text is signed as UTF-8.
  if (typeof body === 'string') hmac.update(body, 'utf8');
  else hmac.update(body);
  return hmac.digest();
}

/**
 * One signature entry, `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` for a `whsec_`
 * secret, `v1a,<base64 Ed25519 signature of the same>` for a `whsk_` signing key.
 * Throws AppError 400 `APP_WEBHOOK_SECRET_INVALID` for a bad secret, 500 for a timestamp that is
 * not integer seconds.
 */
export function signatureFor(input: SignInput & { secret: string }): string {
  assertTimestamp(input.timestamp);
  if (isPrivateKey(input.secret)) {
    const signature = signBytes(null, signedContent(input.id, input.timestamp, input.body), privateKeyOf(input.secret));
    return `${ASYMMETRIC_SCHEME},${signature.toString('base64')}`;
  }
  return `${SCHEME},${digest(hmacKey(input.secret), input.id, input.timestamp, input.body).toString('base64')}`;
}

/**
 * The `webhook-signature` header value: one `v1,` (or `v1a,`) entry per active secret, space separated, in
 * the order given (several secrets sign during a rotation grace period). At least one secret is
 * required.
 */
export function sign(input: SignInput & { secrets: readonly string[] }): string {
  if (input.secrets.length === 0) {
    throw internal('cannot sign a webhook without at least one secret');
  }
  return input.secrets.map((secret) => signatureFor({ ...input, secret })).join(' ');
}

/** The three Standard Webhooks headers of one delivery attempt. */
export function signedHeaders(input: SignInput & { secrets: readonly string[] }): SignedHeaders {
  return {
    'webhook-id': input.id,
    'webhook-timestamp': String(input.timestamp),
    'webhook-signature': sign(input),
  };
}

function readHeader(headers: IncomingHeaders, name: string): string | undefined {
  if (typeof headers.get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  let value = record[name];
  if (value === undefined) {
    // Names are expected lowercased; tolerate another case rather than report them missing.
    const key = Object.keys(record).find((k) => k.toLowerCase() === name);
    value = key === undefined ? undefined : record[key];
  }
  if (Array.isArray(value)) return value.join(' ');
  return value as string | undefined;
}

/**
 * Checks a received delivery as a receiver should (docs/receiving.md): all three headers present,
 * `webhook-timestamp` integer seconds within `toleranceSeconds` (default 300) of `now` in either
 * direction, and at least one `v1,` entry of `webhook-signature` equal to the expected signature
 * under a constant-time comparison (entries of other schemes are ignored); with a `whpk_` public
 * key as `secret`, at least one `v1a,` entry that is a valid Ed25519 signature. `body` must be the raw
 * body, not a re-serialised object. `now` is a Date or epoch milliseconds (default: the clock).
 * Answers `{ok: true}` or `{ok: false, reason}`; throws only for a bad `secret` (AppError 400
 * `APP_WEBHOOK_SECRET_INVALID`). Replay of an already answered `webhook-id` is the caller's check.
 */
export function verify(input: {
  body: RawBody;
  headers: IncomingHeaders;
  secret: string;
  now?: Date | number;
  toleranceSeconds?: number;
}): VerifyResult {
  const asymmetric = typeof input.secret === 'string' && input.secret.startsWith(PUBLIC_KEY_PREFIX);
  const key = asymmetric ? undefined : createSecretKey(secretKey(input.secret));
  const publicKey = asymmetric ? publicKeyFrom(input.secret) : undefined;
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!(tolerance >= 0) || !Number.isFinite(tolerance)) {
    throw internal(`toleranceSeconds must be a non-negative number, got ${String(tolerance)}`);
  }

  const id = readHeader(input.headers, 'webhook-id');
  const timestampText = readHeader(input.headers, 'webhook-timestamp');
  const signatureHeader = readHeader(input.headers, 'webhook-signature');
  if (!id || !timestampText || !signatureHeader) return { ok: false, reason: 'missing-header' };

  if (!INTEGER_SECONDS.test(timestampText)) return { ok: false, reason: 'invalid-timestamp' };
  const timestamp = Number(timestampText);
  const nowMs = input.now === undefined ? Date.now() : new Date(input.now).getTime();
  if (Number.isNaN(nowMs)) throw internal('verify: `now` is not a valid time');
  const now = Math.floor(nowMs / 1000);
  if (now - timestamp > tolerance) return { ok: false, reason: 'timestamp-too-old' };
  if (timestamp - now > tolerance) return { ok: false, reason: 'timestamp-too-new' };

  if (publicKey) {
    const content = signedContent(id, timestampText, input.body);
    const matches = signatureHeader.split(' ').some((entry) => {
      const comma = entry.indexOf(',');
      if (comma === -1 || entry.slice(0, comma) !== ASYMMETRIC_SCHEME) return false;
      const signature = Buffer.from(entry.slice(comma + 1), 'base64');
      return signature.length === 64 && verifyBytes(null, content, publicKey, signature);
    });
    return matches ? { ok: true } : { ok: false, reason: 'no-matching-signature' };
  }
  // Compare the base64 text itself: decoding first would let lenient decoding accept junk.
  const expected = Buffer.from(digest(key as KeyObject, id, timestampText, input.body).toString('base64'), 'utf8');
  let matched = false;
  for (const entry of signatureHeader.split(' ')) {
    const comma = entry.indexOf(',');
    if (comma === -1 || entry.slice(0, comma) !== SCHEME) continue;
    const candidate = Buffer.from(entry.slice(comma + 1), 'utf8');
    if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
  }
  return matched ? { ok: true } : { ok: false, reason: 'no-matching-signature' };
}

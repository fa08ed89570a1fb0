/**
 * Webhook signing secrets at rest.
 *
 * With an application secret, each signing secret is sealed with AES-256-GCM under a key derived
 * by HKDF-SHA256 from it, as the text `enc:v1:<keyId>:<iv>:<tag>:<ciphertext>` (base64url parts;
 * keyId = first 8 hex characters of SHA-256 of the derived key, so a row tells which key sealed
 * it). Without one, secrets are stored as `plain:<secret>`.
 */
import { createCipheriv, createDecipheriv, createHash, createSecretKey, hkdfSync, randomBytes } from 'node:crypto';
import { AppError } from '../errors/app-error.ts';

const HKDF_SALT = 'app-webhooks/secret-box/v1';
const HKDF_INFO = 'webhook-signing-secrets';
export const ENC_PREFIX = 'enc:';
export const PLAIN_PREFIX = 'plain:';
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Seals and opens stored signing secrets. */
export interface SecretBox {
  /** True when secrets are sealed with AES-256-GCM, false when stored as `plain:`. */
  readonly encrypted: boolean;
  /** Whether `stored` is sealed under this box's key (nothing to re-seal); false for `plain:`. */
  sealedHere(stored: string): boolean;
  /** The text to store for a signing secret. */
  seal(plain: string): string;
  /**
   * The signing secret of a stored value (`enc:` or `plain:`); `endpointId` names the endpoint in
   * the error. Throws AppError 500 `APP_WEBHOOK_SECRET_UNREADABLE` when it cannot be read.
   */
  open(stored: string, endpointId?: string): string;
}

function unreadable(endpointId: string | undefined, why: string, cause?: unknown): AppError {
  const id = endpointId ?? '<id>';
  return new AppError(
    500,
    `the signing secret of webhook endpoint ${endpointId ?? '(unknown)'} cannot be read: ${why}; ` +
      `rotate the endpoint's secret (app webhooks:rotate ${id}) and give the new secret to the receiver`,
    {
      code: 'APP_WEBHOOK_SECRET_UNREADABLE',
      expose: true,
      data: { endpoint: endpointId ?? null },
      cause,
    },
  );
}

/**
 * The box for `appSecret` (the application's `config.secret`). An undefined or empty secret gives
 * a box that stores secrets unencrypted (`encrypted: false`; the boot warns once, not this
 * module). Values stored as `plain:` open either way, so enabling encryption later keeps old rows
 * readable. `purpose` names what the box seals (default: webhook signing secrets); other uses
 * (stored idempotent answers, endpoint header values) get keys of their own.
 */
export function createSecretBox(appSecret: string | undefined, options: { purpose?: string } = {}): SecretBox {
  // each purpose gets a key of its own from the same application secret (HKDF `info`)
  const info = options.purpose ?? HKDF_INFO;
  const key =
    appSecret === undefined || appSecret === ''
      ? undefined
      : Buffer.from(hkdfSync('sha256', Buffer.from(appSecret, 'utf8'), HKDF_SALT, info, 32));
  const keyId = key === undefined ? undefined : createHash('sha256').update(key).digest('hex').slice(0, 8);
  // A KeyObject made once: Node prepares a raw Buffer key anew for every cipher (several times
  // the cost of the AES-GCM itself for a secret this short), and the worker opens one per delivery.
  const keyObject = key === undefined ? undefined : createSecretKey(key);

  function seal(plain: string): string {
    if (keyObject === undefined || keyId === undefined) return PLAIN_PREFIX + plain;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', keyObject, iv, { authTagLength: TAG_BYTES });
    // The header is authenticated too, so a row cannot be relabelled with another key id.
    cipher.setAAD(Buffer.from(`${ENC_PREFIX}${VERSION}:${keyId}`, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [
      `${ENC_PREFIX}${VERSION}`,
      keyId,
      iv.toString('base64url'),
      tag.toString('base64url'),
      ciphertext.toString('base64url'),
    ].join(':');
  }

  function open(stored: string, endpointId?: string): string {
    if (stored.startsWith(PLAIN_PREFIX)) return stored.slice(PLAIN_PREFIX.length);
    if (!stored.startsWith(ENC_PREFIX)) throw unreadable(endpointId, 'the stored value has an unknown format');
    if (keyObject === undefined) {
      throw unreadable(endpointId, 'it is encrypted and the application has no secret configured');
    }
    const parts = stored.split(':');
    if (parts.length !== 6 || parts[1] !== VERSION) {
      throw unreadable(endpointId, 'the stored value has an unknown format');
    }
    const [, , storedKeyId, ivText, tagText, ciphertextText] = parts;
    if (storedKeyId !== keyId) {
      throw unreadable(endpointId, 'it was encrypted under another application secret');
    }
    const iv = Buffer.from(ivText, 'base64url');
    const tag = Buffer.from(tagText, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
      throw unreadable(endpointId, 'the stored value is damaged');
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', keyObject, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(`${ENC_PREFIX}${VERSION}:${storedKeyId}`, 'utf8'));
      decipher.setAuthTag(tag);
      const plain = Buffer.concat([decipher.update(Buffer.from(ciphertextText, 'base64url')), decipher.final()]);
      return plain.toString('utf8');
    } catch (error) {
      throw unreadable(endpointId, 'it failed authentication (damaged, or sealed under another key)', error);
    }
  }

  const sealedHere = (stored: string) => keyId !== undefined && stored.startsWith(`${ENC_PREFIX}${VERSION}:${keyId}:`);

  return { encrypted: key !== undefined, sealedHere, seal, open };
}

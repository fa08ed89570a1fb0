/**
 * Webhook signing secrets at rest.
 *
 * With an application secret, each signing secret is sealed with AES-256-GCM under a key derived
 * by HKDF-SHA256 from it, as the text `enc:v1:<keyId>:<iv>:<tag>:<ciphertext>` (base64url parts;
 * keyId = first 8 hex characters of SHA-256 of the derived key, so a row tells which key sealed
 * it). Without one, secrets are stored as `plain:<secret>`.
 *
 * While the application secret is rotated, the secrets it replaced (`previousSecrets`) still open
 * what was sealed under them: a value names its key by keyId, so opening picks that one key (no
 * trial decryption). Sealing always uses the current secret.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createSecretKey,
  hkdfSync,
  type KeyObject,
  randomBytes,
} from 'node:crypto';
import { AppError } from '../errors/app-error.ts';
import type { Config } from '../config/index.ts';

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
  /**
   * Whether `stored` is sealed under one of the previous secrets (not the current one): what
   * `app secrets:seal` moves to the current key, and the security audit counts.
   */
  sealedUnderPrevious(stored: string): boolean;
  /**
   * Whether `stored` is sealed under a key that neither the current secret nor a previous one
   * gives (a database restored under another `APP_SECRET`): it cannot be opened, and the security
   * audit counts it.
   */
  sealedUnopenable(stored: string): boolean;
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

/** A key derived for one purpose from one application secret, with the id sealed values name it by. */
interface DerivedKey {
  id: string;
  /**
   * A KeyObject made once: Node prepares a raw Buffer key anew for every cipher (several times the
   * cost of the AES-GCM itself for a secret this short), and the worker opens one per delivery.
   */
  key: KeyObject;
}

function deriveKey(appSecret: string, info: string): DerivedKey {
  const raw = Buffer.from(hkdfSync('sha256', Buffer.from(appSecret, 'utf8'), HKDF_SALT, info, 32));
  return { id: createHash('sha256').update(raw).digest('hex').slice(0, 8), key: createSecretKey(raw) };
}

/** The keyId a sealed value names (`enc:v1:<keyId>:…`), or undefined for any other text. */
function keyIdOf(stored: string): string | undefined {
  if (!stored.startsWith(`${ENC_PREFIX}${VERSION}:`)) return undefined;
  return stored.split(':', 3)[2];
}

export interface SecretBoxOptions {
  /** What the box seals (HKDF `info`); default: webhook signing secrets. */
  purpose?: string;
  /** Application secrets `appSecret` replaced: values sealed under them open, nothing is sealed under them. */
  previous?: readonly string[];
}

/**
 * The box for `appSecret` (the application's `config.secret`). An undefined or empty secret gives
 * a box that stores secrets unencrypted (`encrypted: false`; the boot warns once, not this
 * module). Values stored as `plain:` open either way, so enabling encryption later keeps old rows
 * readable. `purpose` names what the box seals (default: webhook signing secrets); other uses
 * (stored idempotent answers, endpoint header values) get keys of their own. `previous` secrets
 * only open (each key derived here, once).
 */
export function createSecretBox(appSecret: string | undefined, options: SecretBoxOptions = {}): SecretBox {
  // each purpose gets a key of its own from the same application secret (HKDF `info`)
  const info = options.purpose ?? HKDF_INFO;
  const current = appSecret === undefined || appSecret === '' ? undefined : deriveKey(appSecret, info);
  // the keys that open, by the keyId a sealed value names; the current one is set last, so it wins
  const opening = new Map<string, KeyObject>();
  for (const secret of options.previous ?? []) {
    if (secret === '') continue;
    const previous = deriveKey(secret, info);
    opening.set(previous.id, previous.key);
  }
  if (current !== undefined) opening.set(current.id, current.key);

  function seal(plain: string): string {
    if (current === undefined) return PLAIN_PREFIX + plain;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', current.key, iv, { authTagLength: TAG_BYTES });
    // The header is authenticated too, so a row cannot be relabelled with another key id.
    cipher.setAAD(Buffer.from(`${ENC_PREFIX}${VERSION}:${current.id}`, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [
      `${ENC_PREFIX}${VERSION}`,
      current.id,
      iv.toString('base64url'),
      tag.toString('base64url'),
      ciphertext.toString('base64url'),
    ].join(':');
  }

  function open(stored: string, endpointId?: string): string {
    if (stored.startsWith(PLAIN_PREFIX)) return stored.slice(PLAIN_PREFIX.length);
    if (!stored.startsWith(ENC_PREFIX)) throw unreadable(endpointId, 'the stored value has an unknown format');
    if (opening.size === 0) {
      throw unreadable(endpointId, 'it is encrypted and the application has no secret configured');
    }
    const parts = stored.split(':');
    if (parts.length !== 6 || parts[1] !== VERSION) {
      throw unreadable(endpointId, 'the stored value has an unknown format');
    }
    const [, , storedKeyId, ivText, tagText, ciphertextText] = parts;
    const key = opening.get(storedKeyId);
    if (key === undefined) {
      throw unreadable(
        endpointId,
        'it was encrypted under another application secret (after a change of APP_SECRET, list the previous one in APP_PREVIOUS_SECRETS)',
      );
    }
    const iv = Buffer.from(ivText, 'base64url');
    const tag = Buffer.from(tagText, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
      throw unreadable(endpointId, 'the stored value is damaged');
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(`${ENC_PREFIX}${VERSION}:${storedKeyId}`, 'utf8'));
      decipher.setAuthTag(tag);
      const plain = Buffer.concat([decipher.update(Buffer.from(ciphertextText, 'base64url')), decipher.final()]);
      return plain.toString('utf8');
    } catch (error) {
      throw unreadable(endpointId, 'it failed authentication (damaged, or sealed under another key)', error);
    }
  }

  const sealedHere = (stored: string) =>
    current !== undefined && stored.startsWith(`${ENC_PREFIX}${VERSION}:${current.id}:`);
  const sealedUnderPrevious = (stored: string) => {
    const keyId = keyIdOf(stored);
    return keyId !== undefined && keyId !== current?.id && opening.has(keyId);
  };
  const sealedUnopenable = (stored: string) => {
    const keyId = keyIdOf(stored);
    return keyId !== undefined && !opening.has(keyId);
  };

  return { encrypted: current !== undefined, sealedHere, sealedUnderPrevious, sealedUnopenable, seal, open };
}

/** Which sealed values a count is after: those under a previous secret, or under none the box holds. */
export type SealedUnder = 'previous' | 'unopenable';

/** Whether `stored` is sealed as `under` says, in `box`. */
export const sealedUnder = (box: SecretBox, stored: string, under: SealedUnder): boolean =>
  under === 'previous' ? box.sealedUnderPrevious(stored) : box.sealedUnopenable(stored);

/** What a box of the application is made from: the current secret and, while rotating, those it replaced. */
export type BoxSecrets = Pick<Config, 'secret'> & Partial<Pick<Config, 'previousSecrets'>>;

/** Boxes made per config object (resolved once, frozen) and purpose: deriving the keys costs more than opening. */
const boxesByPurpose = new Map<string, WeakMap<BoxSecrets, SecretBox>>();

/** The box of `purpose` (default: webhook signing secrets) for `config.secret` and `config.previousSecrets`. */
export function secretBoxOf(config: BoxSecrets, purpose: string = HKDF_INFO): SecretBox {
  let boxes = boxesByPurpose.get(purpose);
  if (boxes === undefined) {
    boxes = new WeakMap();
    boxesByPurpose.set(purpose, boxes);
  }
  let box = boxes.get(config);
  if (box === undefined) {
    box = createSecretBox(config.secret ?? undefined, { purpose, previous: config.previousSecrets ?? [] });
    boxes.set(config, box);
  }
  return box;
}

/**
 * The credentials of a broker destination URL (`amqp://user:pass@host/…`) at rest and in sight.
 *
 * - At rest the whole userinfo (`user:pass` as written, percent-encoding kept) is sealed like an
 *   endpoint header value (secret-box.ts, a key of its own purpose) and stored, percent-encoded,
 *   as the URL's user name behind the prefix `sealed.`, with no password:
 *   `amqp://sealed.enc%3Av1%3A…@host:5672/vh?exchange=x`. The stored text stays a valid URL that
 *   every endpoint store keeps as it keeps any url, and holds nothing readable.
 * - The worker opens it right before an attempt (`openUrlCredentials`), and nothing else does.
 * - Everywhere else the userinfo is shown as `***`, the user name too (half a credential):
 *   `maskUrl`, applied where an endpoint record becomes a public shape.
 * - An update may give the masked form back (`amqp://***@host/…`): the stored credentials are
 *   kept when the scheme, host and port are unchanged (`keepMaskedCredentials`).
 */
import { AppError, isAppError, unprocessable } from '../../errors/app-error.ts';
import {
  type BoxSecrets,
  PLAIN_PREFIX,
  type SealedUnder,
  type SecretBox,
  sealedUnder,
  secretBoxOf,
} from '../secret-box.ts';
import { maskUserinfo } from '../../log/redact.ts';
import { redact } from '../address-rules.ts';
import { schemeOf } from './kinds.ts';
import { brokerHost } from './parse.ts';

/** The key purpose of URL credentials (its own HKDF `info`, apart from header values and secrets). */
export const URL_CREDENTIALS_PURPOSE = 'endpoint-url-credentials';
/** What a stored user name starts with when it holds the sealed userinfo. */
export const SEALED_PREFIX = 'sealed.';
/** The userinfo every face shows in place of the credentials, and an update may give back. */
export const MASK = '***';

/** The box of URL credentials for `config.secret` (and the `previousSecrets` it replaced). */
export const urlCredentialsBox = (config: BoxSecrets): SecretBox => secretBoxOf(config, URL_CREDENTIALS_PURPOSE);

const parsed = (text: string): URL | null => {
  try {
    return new URL(text);
  } catch {
    return null;
  }
};

/** The userinfo of `url` as written (`user:pass`, `user`, `:pass`), or '' when it has none. */
const userinfoOf = (url: URL): string => (url.password === '' ? url.username : `${url.username}:${url.password}`);

/** `url` (a checked url's text, WHATWG serialised) with its userinfo replaced by `userinfo`. */
function withUserinfo(url: URL, userinfo: string): string {
  const copy = new URL(url.href);
  const colon = userinfo.indexOf(':');
  // the setters keep percent-encoded text as it is, so the original serialisation comes back
  copy.username = colon === -1 ? userinfo : userinfo.slice(0, colon);
  copy.password = colon === -1 ? '' : userinfo.slice(colon + 1);
  return copy.href;
}

/** Whether a stored url holds credentials nobody sealed (written to the store by other software). */
export function hasOpenCredentials(stored: string): boolean {
  const url = parsed(stored);
  return url !== null && userinfoOf(url) !== '' && !url.username.startsWith(SEALED_PREFIX);
}

/**
 * Whether a stored url holds credentials that anyone reading the endpoint store can read: sealed
 * while the application had no secret (`sealed.plain%3A…`: the box stores `plain:` then) or never
 * sealed at all (`hasOpenCredentials`). What `app secrets:seal` encrypts, and what the security
 * audit counts (shared/security/audit-facts.ts); a damaged seal is not counted (it reads as nothing).
 */
export function holdsCredentialsInClear(stored: string): boolean {
  if (!stored.includes('@')) return false; // most urls: no userinfo, no parsing
  const url = parsed(stored);
  if (url === null || userinfoOf(url) === '') return false;
  if (!url.username.startsWith(SEALED_PREFIX)) return true;
  try {
    return sealedValue(url)?.startsWith(PLAIN_PREFIX) ?? false;
  } catch {
    return false;
  }
}

/** The sealed value a stored url holds (`enc:…` or `plain:…`), or null: none, or a damaged seal. */
function sealedIn(stored: string): string | null {
  if (!stored.includes('@')) return null; // most urls: no userinfo, no parsing
  const url = parsed(stored);
  if (url === null) return null;
  try {
    return sealedValue(url);
  } catch {
    return null;
  }
}

/**
 * Whether a stored url's credentials are sealed under one of `config.previousSecrets` (`under:
 * 'previous'`: what `app secrets:seal` moves under the current secret), or under a secret the
 * configuration does not hold (`'unopenable'`); the security audit counts both.
 */
export function holdsCredentialsSealed(config: BoxSecrets, stored: string, under: SealedUnder): boolean {
  const sealed = sealedIn(stored);
  return sealed !== null && sealedUnder(urlCredentialsBox(config), sealed, under);
}

/**
 * The url to store for `url` (a checked url's text): its userinfo sealed, or `url` unchanged when
 * it has none (every HTTP receiver's url). Sealing is not idempotent on purpose: a user name that
 * already looks sealed is sealed again, so a client can never hand in someone else's sealed value.
 */
export function sealUrlCredentials(config: BoxSecrets, url: string): string {
  const parsedUrl = parsed(url);
  if (parsedUrl === null) return url;
  const userinfo = userinfoOf(parsedUrl);
  if (userinfo === '') return url;
  return withUserinfo(parsedUrl, SEALED_PREFIX + encodeURIComponent(urlCredentialsBox(config).seal(userinfo)));
}

/** The sealed value of a stored url's user name (`enc:…` or `plain:…`), or null when none. */
function sealedValue(url: URL): string | null {
  if (!url.username.startsWith(SEALED_PREFIX)) return null;
  return decodeURIComponent(url.username.slice(SEALED_PREFIX.length));
}

function unreadable(endpointId: string | undefined, why: string, cause?: unknown): AppError {
  const id = endpointId ?? '<id>';
  return new AppError(
    500,
    `the credentials in the url of webhook endpoint ${endpointId ?? '(unknown)'} cannot be read: ${why}; ` +
      `after a change of APP_SECRET, list the previous one in APP_PREVIOUS_SECRETS (then app secrets:seal re-seals them), or give the url again with its credentials (app webhooks:update ${id} --url …)`,
    { code: 'APP_WEBHOOK_SECRET_UNREADABLE', expose: true, data: { endpoint: endpointId ?? null }, cause },
  );
}

/**
 * The url a worker connects with: a stored url's sealed credentials opened, as the client gave
 * them. A url without sealed credentials is answered as it is. Throws AppError 500
 * `APP_WEBHOOK_SECRET_UNREADABLE` when the seal cannot be opened (another application secret).
 */
export function openUrlCredentials(config: BoxSecrets, stored: string, endpointId?: string): string {
  if (!stored.includes('@')) return stored; // most urls: nothing sealed, no parsing
  const url = parsed(stored);
  if (url === null) return stored;
  let sealed: string | null;
  try {
    sealed = sealedValue(url);
  } catch (error) {
    throw unreadable(endpointId, 'the sealed value is damaged', error);
  }
  if (sealed === null) return stored;
  try {
    return withUserinfo(url, urlCredentialsBox(config).open(sealed, endpointId));
  } catch (error) {
    if (isAppError(error) && error.code === 'APP_WEBHOOK_SECRET_UNREADABLE')
      throw unreadable(endpointId, 'they were sealed under another application secret, or are damaged', error);
    throw error;
  }
}

/**
 * The stored url with its sealed credentials sealed again by `seal` (the re-seal of `app
 * secrets:seal`), or null when `seal` answers null (current already) for the sealed value, or
 * when the url holds no sealed credentials.
 */
export function resealUrlCredentials(stored: string, reseal: (sealed: string) => string | null): string | null {
  const url = parsed(stored);
  if (url === null) return null;
  const sealed = sealedValue(url);
  if (sealed === null) return null;
  const next = reseal(sealed);
  if (next === null) return null;
  const copy = new URL(url.href);
  copy.username = SEALED_PREFIX + encodeURIComponent(next);
  return copy.href;
}

/** The url as every face shows it: any userinfo, sealed or not, as `***`. */
export const maskUrl = (url: string): string => redact(url);

/** Whether the client gave the masked userinfo back (`scheme://***@…`), meaning "keep them". */
export function givesMaskedCredentials(url: string): boolean {
  const parsedUrl = parsed(url);
  return parsedUrl !== null && parsedUrl.username === MASK && parsedUrl.password === '';
}

/** Scheme, normalised host and port: what the kept credentials are bound to. */
function place(url: URL): string {
  const scheme = schemeOf(url.protocol);
  const port = url.port === '' ? String(scheme?.defaultPort ?? '') : url.port;
  return `${url.protocol}//${brokerHost(url)}:${port}`;
}

/**
 * The url to store for an update that gave the masked credentials back: `given` (checked, with
 * `***` as its userinfo) with the credentials `current` (the stored url) holds. Kept only for the
 * same scheme, host and port, so credentials never follow a url to another server; otherwise, or
 * when nothing is stored to keep, AppError 422 `APP_WEBHOOK_URL_CREDENTIALS_REQUIRED`.
 */
export function keepMaskedCredentials(given: string, current: string): string {
  const next = new URL(given);
  const stored = parsed(current);
  const refuse = (reason: string) =>
    unprocessable(`webhook url credentials are needed: ${reason}; give the url with its user name and password`, {
      code: 'APP_WEBHOOK_URL_CREDENTIALS_REQUIRED',
      data: { field: 'url', value: maskUrl(given), reason },
    });
  if (stored === null || sealedValue(stored) === null)
    throw refuse('the url gives *** for its credentials, and the endpoint has none stored to keep');
  if (place(next) !== place(stored))
    throw refuse('*** keeps the stored credentials only for the same scheme, host and port');
  return withUserinfo(next, stored.username);
}

/** Refuses the masked userinfo at registration: there is nothing to keep (422 `APP_WEBHOOK_URL_CREDENTIALS_REQUIRED`). */
export function assertNotMasked(url: string): void {
  if (givesMaskedCredentials(url))
    throw unprocessable(
      'webhook url credentials are needed: *** stands for stored credentials, and a new endpoint has none; give the url with its user name and password',
      {
        code: 'APP_WEBHOOK_URL_CREDENTIALS_REQUIRED',
        data: { field: 'url', value: maskUrl(url), reason: 'masked credentials at registration' },
      },
    );
}

/** Shorter words are not scrubbed out of text: they would garble it and guard nothing. */
const MIN_SCRUBBED = 3;

/**
 * `text` (an attempt's error or detail) with any url's userinfo, and the user name and password
 * of the opened `url` (as written and decoded), replaced by `***`: a broker client's error may
 * quote what it was given.
 */
export function scrubCredentials(text: string, url: string): string {
  const parsedUrl = parsed(url);
  if (parsedUrl === null) return text;
  const decode = (part: string) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  };
  const words = [parsedUrl.password, parsedUrl.username, decode(parsedUrl.password), decode(parsedUrl.username)]
    .filter((word) => word.length >= MIN_SCRUBBED)
    .sort((a, b) => b.length - a.length);
  let scrubbed = maskUserinfo(text);
  for (const word of new Set(words)) scrubbed = scrubbed.split(word).join(MASK);
  return scrubbed;
}

/**
 * `app secrets:seal`: brings every stored signing secret, header value and broker url's
 * credentials under the current application secret. Secrets stored `plain:` (made before
 * `APP_SECRET` was set) are encrypted; values sealed under a previous application secret (one of
 * `previousSecrets`, or the one `fromSecret` gives) are opened with it and sealed again under the
 * current one ("moved"), so the application secret can be rotated without rotating every
 * endpoint's signing secret. Values already sealed under the current key are left alone, so a run
 * can be repeated (or interrupted) safely. Each endpoint is changed on its own (a versioned write
 * of its record, whatever store holds it), so deliveries go on meanwhile.
 */
import { isAppError, unprocessable } from '../errors/app-error.ts';
import { type BoxSecrets, ENC_PREFIX, PLAIN_PREFIX, type SecretBox } from './secret-box.ts';
import { headerBox } from './endpoints/header-box.ts';
import {
  hasOpenCredentials,
  resealUrlCredentials,
  sealUrlCredentials,
  urlCredentialsBox,
} from './destinations/credentials.ts';
import { secretBoxFor } from './endpoints/secrets.ts';
import { changeEndpoint, endpointStoreOf } from './endpoints/store.ts';
import type { StoredEndpoint, StoredSecret } from './endpoint-stores/types.ts';
import type { WebhookDeps } from './deps.ts';

export interface ResealResult {
  /** Secrets sealed under the current key by this run (or that would be, with `dryRun`). */
  resealed: number;
  /** Endpoints whose header values were sealed again (shared/webhooks/endpoints/header-box.ts). */
  headers: number;
  /** Endpoints whose url credentials were sealed again (shared/webhooks/destinations/credentials.ts). */
  urls: number;
  /**
   * Values (signing secrets, header values, url credentials) moved from a previous application
   * secret to the current one; the rest of what was sealed had been stored unencrypted.
   */
  moved: number;
  /** Secrets already sealed under the current key. */
  current: number;
  /** Secrets (or header values) that no configured key opens: their endpoints need `webhooks:rotate`. */
  unreadable: Array<{ id: string; endpointId: string }>;
  dryRun: boolean;
}

/** What one value becomes: unchanged (already current), sealed anew, or left as it is (unreadable). */
type Resealed = { kind: 'current' } | { kind: 'sealed'; value: string; moved: boolean } | { kind: 'unreadable' };

/**
 * What `stored` should hold under the current key of `box` (which opens with the previous
 * secrets too, picking the key by the keyId the value names). `plain:` values are encrypted.
 */
function resealed(stored: string, endpointId: string, box: SecretBox): Resealed {
  if (box.sealedHere(stored)) return { kind: 'current' };
  try {
    return { kind: 'sealed', value: box.seal(box.open(stored, endpointId)), moved: stored.startsWith(ENC_PREFIX) };
  } catch {
    return { kind: 'unreadable' };
  }
}

/** What a run counts (the result without `dryRun`). */
type Tally = Omit<ResealResult, 'dryRun'>;

const emptyTally = (): Tally => ({ resealed: 0, headers: 0, urls: 0, moved: 0, current: 0, unreadable: [] });

/** The boxes of a run: each seals under the current secret and opens with the previous ones too. */
interface Boxes {
  config: BoxSecrets;
  secrets: SecretBox;
  headers: SecretBox;
  urls: SecretBox;
}

function boxesOf(config: BoxSecrets): Boxes {
  return { config, secrets: secretBoxFor(config), headers: headerBox(config), urls: urlCredentialsBox(config) };
}

/** The endpoint's signing secrets under the current key, each counted in `tally`. */
function resealSigningSecrets(endpoint: StoredEndpoint, box: SecretBox, tally: Tally): StoredSecret[] {
  return endpoint.secrets.map((secret, index) => {
    const next = resealed(secret.sealed, endpoint.id, box);
    if (next.kind === 'current') tally.current += 1;
    else if (next.kind === 'unreadable')
      tally.unreadable.push({ id: `secret ${index + 1} of ${endpoint.id}`, endpointId: endpoint.id });
    else {
      tally.resealed += 1;
      if (next.moved) tally.moved += 1;
    }
    return next.kind === 'sealed' ? { ...secret, sealed: next.value } : secret;
  });
}

/** The endpoint's header values under the current key; the endpoint is counted once in `tally.headers`. */
function resealHeaders(endpoint: StoredEndpoint, box: SecretBox, tally: Tally): Record<string, string> {
  let changed = false;
  let unreadable = false;
  const headers = Object.fromEntries(
    Object.entries(endpoint.headers).map(([name, value]) => {
      // a value stored before values were sealed (no prefix) is sealed as it is
      const legacy = !value.startsWith(ENC_PREFIX) && !value.startsWith(PLAIN_PREFIX);
      const next: Resealed = legacy
        ? { kind: 'sealed', value: box.seal(value), moved: false }
        : resealed(value, endpoint.id, box);
      if (next.kind === 'unreadable') unreadable = true;
      if (next.kind !== 'sealed') return [name, value];
      changed = true;
      if (next.moved) tally.moved += 1;
      return [name, next.value];
    }),
  );
  if (unreadable) tally.unreadable.push({ id: `headers of ${endpoint.id}`, endpointId: endpoint.id });
  if (changed) tally.headers += 1;
  return headers;
}

/** The endpoint's url with its credentials under the current key (unsealed ones sealed). */
function resealUrl(endpoint: StoredEndpoint, boxes: Boxes, tally: Tally): string {
  if (hasOpenCredentials(endpoint.url)) {
    tally.urls += 1;
    return sealUrlCredentials(boxes.config, endpoint.url);
  }
  let unreadable = false;
  const url = resealUrlCredentials(endpoint.url, (sealed) => {
    const next = resealed(sealed, endpoint.id, boxes.urls);
    if (next.kind === 'unreadable') unreadable = true;
    if (next.kind !== 'sealed') return null;
    if (next.moved) tally.moved += 1;
    return next.value;
  });
  if (unreadable) tally.unreadable.push({ id: `url credentials of ${endpoint.id}`, endpointId: endpoint.id });
  if (url !== null) tally.urls += 1;
  return url ?? endpoint.url;
}

/** Adds what one endpoint's change counted to the run's result. */
function addTally(result: ResealResult, tally: Tally): void {
  result.resealed += tally.resealed;
  result.headers += tally.headers;
  result.urls += tally.urls;
  result.moved += tally.moved;
  result.current += tally.current;
  result.unreadable.push(...tally.unreadable);
}

/**
 * Re-seals every stored signing secret, header value and url's credentials under `config.secret`
 * (see the file comment), opening with `config.previousSecrets` and `fromSecret`. Throws 422
 * `APP_SECRET_REQUIRED` when the application has no secret to seal with.
 */
export async function resealSecrets(
  deps: WebhookDeps,
  options: { fromSecret?: string; dryRun?: boolean } = {},
): Promise<ResealResult> {
  if (!deps.config.secret) {
    throw unprocessable('there is no application secret to seal with: set APP_SECRET first', {
      code: 'APP_SECRET_REQUIRED',
      data: { field: 'secret' },
    });
  }
  const previousSecrets = [...deps.config.previousSecrets, ...(options.fromSecret ? [options.fromSecret] : [])];
  const boxes = boxesOf({ secret: deps.config.secret, previousSecrets });
  const result: ResealResult = { ...emptyTally(), dryRun: options.dryRun === true };
  const { records } = await endpointStoreOf(deps).list({});
  for (const record of records) {
    // the same pure change is applied again if the record changed meanwhile; counted on the last
    let counted: Tally = emptyTally();
    const change = (endpoint: StoredEndpoint): StoredEndpoint => {
      const tally = emptyTally();
      const secrets = resealSigningSecrets(endpoint, boxes.secrets, tally);
      const headers = resealHeaders(endpoint, boxes.headers, tally);
      const url = resealUrl(endpoint, boxes, tally);
      counted = tally;
      return { ...endpoint, secrets, headers, url };
    };
    change(record);
    const changed = counted.resealed > 0 || counted.headers > 0 || counted.urls > 0;
    if (changed && !result.dryRun) {
      try {
        await changeEndpoint(deps, record.id, undefined, change);
      } catch (error) {
        if (isAppError(error) && error.code === 'APP_WEBHOOK_NOT_FOUND') continue; // removed meanwhile
        throw error;
      }
    }
    addTally(result, counted);
  }
  return result;
}

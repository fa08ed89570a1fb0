/**
 * `app secrets:seal`: brings every stored signing secret, header value and broker url's
 * credentials under the current application secret. Secrets stored `plain:` (made before `APP_SECRET` was set) are encrypted;
 * secrets sealed under a previous application secret are opened with it (`fromSecret`) and sealed
 * again under the current one, so the application secret can be rotated without rotating every
 * endpoint's signing secret. Values already sealed under the current key are left alone, so a run
 * can be repeated (or interrupted) safely. Each endpoint is changed on its own (a versioned write
 * of its record, whatever store holds it), so deliveries go on meanwhile.
 */
import { isAppError, unprocessable } from '../errors/app-error.ts';
import { createSecretBox, type SecretBox } from './secret-box.ts';
import { headerBox } from './endpoints/header-box.ts';
import {
  hasOpenCredentials,
  resealUrlCredentials,
  sealUrlCredentials,
  URL_CREDENTIALS_PURPOSE,
  urlCredentialsBox,
} from './destinations/credentials.ts';
import { changeEndpoint, endpointStoreOf } from './endpoints/store.ts';
import type { StoredEndpoint } from './endpoint-stores/types.ts';
import type { WebhookDeps } from './deps.ts';

export interface ResealResult {
  /** Secrets sealed under the current key by this run (or that would be, with `dryRun`). */
  resealed: number;
  /** Endpoints whose header values were sealed again (shared/webhooks/endpoints/header-box.ts). */
  headers: number;
  /** Endpoints whose url credentials were sealed again (shared/webhooks/destinations/credentials.ts). */
  urls: number;
  /** Secrets already sealed under the current key. */
  current: number;
  /** Secrets (or header values) that neither key opens: their endpoints need `webhooks:rotate`. */
  unreadable: Array<{ id: string; endpointId: string }>;
  dryRun: boolean;
}

interface SealedValue {
  endpointId: string;
  sealed: string;
}

/** What the value should hold under `current`, or null when it is current, or 'unreadable'. */
function resealed(
  value: SealedValue,
  current: SecretBox,
  previous: SecretBox | undefined,
): string | null | 'unreadable' {
  if (current.sealedHere(value.sealed)) return null;
  for (const box of previous ? [current, previous] : [current]) {
    try {
      return current.seal(box.open(value.sealed, value.endpointId));
    } catch {
      // try the next key
    }
  }
  return 'unreadable';
}

/**
 * Re-seals every stored signing secret, header value and url's credentials under `config.secret` (see the file
 * comment). Throws 422 `APP_SECRET_REQUIRED` when the application has no secret to seal with.
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
  const current = createSecretBox(deps.config.secret);
  const previous = options.fromSecret ? createSecretBox(options.fromSecret) : undefined;
  const currentHeaders = headerBox(deps.config);
  const previousHeaders = options.fromSecret
    ? createSecretBox(options.fromSecret, { purpose: 'endpoint-headers' })
    : undefined;
  const currentUrls = urlCredentialsBox(deps.config);
  const previousUrls = options.fromSecret
    ? createSecretBox(options.fromSecret, { purpose: URL_CREDENTIALS_PURPOSE })
    : undefined;
  const result: ResealResult = {
    resealed: 0,
    headers: 0,
    urls: 0,
    current: 0,
    unreadable: [],
    dryRun: options.dryRun === true,
  };
  const { records } = await endpointStoreOf(deps).list({});
  for (const record of records) {
    // the same pure change is applied again if the record changed meanwhile; counted on the last
    let counted: ResealResult | undefined;
    const change = (endpoint: StoredEndpoint) => {
      const tally: ResealResult = { ...result, resealed: 0, headers: 0, urls: 0, current: 0, unreadable: [] };
      const secrets = endpoint.secrets.map((secret, index) => {
        const next = resealed({ endpointId: endpoint.id, sealed: secret.sealed }, current, previous);
        if (next === null) tally.current += 1;
        else if (next === 'unreadable')
          tally.unreadable.push({ id: `secret ${index + 1} of ${endpoint.id}`, endpointId: endpoint.id });
        else tally.resealed += 1;
        return next === null || next === 'unreadable' ? secret : { ...secret, sealed: next };
      });
      let headersChanged = false;
      let headersUnreadable = false;
      const headers = Object.fromEntries(
        Object.entries(endpoint.headers).map(([name, value]) => {
          const legacy = !value.startsWith('enc:') && !value.startsWith('plain:');
          const next = legacy
            ? currentHeaders.seal(value)
            : resealed({ endpointId: endpoint.id, sealed: value }, currentHeaders, previousHeaders);
          if (next === 'unreadable') headersUnreadable = true;
          else if (next !== null) headersChanged = true;
          return [name, next === null || next === 'unreadable' ? value : next];
        }),
      );
      if (headersUnreadable) tally.unreadable.push({ id: `headers of ${endpoint.id}`, endpointId: endpoint.id });
      if (headersChanged) tally.headers += 1;
      let urlUnreadable = false;
      const url = hasOpenCredentials(endpoint.url)
        ? sealUrlCredentials(deps.config, endpoint.url)
        : resealUrlCredentials(endpoint.url, (sealed) => {
            const next = resealed({ endpointId: endpoint.id, sealed }, currentUrls, previousUrls);
            if (next === 'unreadable') urlUnreadable = true;
            return next === 'unreadable' ? null : next;
          });
      if (urlUnreadable) tally.unreadable.push({ id: `url credentials of ${endpoint.id}`, endpointId: endpoint.id });
      if (url !== null) tally.urls += 1;
      counted = tally;
      return { ...endpoint, secrets, headers, url: url ?? endpoint.url };
    };
    change(record);
    const changed = counted !== undefined && (counted.resealed > 0 || counted.headers > 0 || counted.urls > 0);
    if (changed && !result.dryRun) {
      try {
        await changeEndpoint(deps, record.id, undefined, change);
      } catch (error) {
        if (isAppError(error) && error.code === 'APP_WEBHOOK_NOT_FOUND') continue; // removed meanwhile
        throw error;
      }
    }
    if (counted !== undefined) {
      result.resealed += counted.resealed;
      result.headers += counted.headers;
      result.urls += counted.urls;
      result.current += counted.current;
      result.unreadable.push(...counted.unreadable);
    }
  }
  return result;
}

/**
 * Opens what an endpoint keeps sealed (signing secrets, header values, a broker url's
 * credentials) once per worker process instead of once per attempt: AES-GCM and, for header
 * values, a key derivation are a noticeable part of a delivery's CPU, and every delivery of an
 * endpoint opens the same values.
 *
 * Values are kept by their sealed text. A seal has a random IV, so one sealed text always stands
 * for one plain value under the process's application secrets (resolved once at start, the
 * current one and any `previousSecrets`, each key derived once): keeping it changes nothing that
 * is read. Which secrets an attempt signs with still comes from the endpoint's
 * record at each claim, so a rotation or a revoked header takes effect as before. Failures are not
 * kept: a value that cannot be opened throws at every attempt, as it did.
 */
import { openUrlCredentials } from '../../shared/webhooks/destinations/credentials.ts';
import { openHeaders } from '../../shared/webhooks/endpoints/header-box.ts';
import { secretBoxFor } from '../../shared/webhooks/endpoints/secrets.ts';
import type { BoxSecrets } from '../../shared/webhooks/secret-box.ts';

export interface Opener {
  /** A stored signing secret, opened (secret-box.ts `open`). */
  secret(sealed: string, endpointId: string): string;
  /** The endpoint's stored headers with their values opened (header-box.ts `openHeaders`). */
  headers(stored: Record<string, string> | null | undefined, endpointId: string): Record<string, string>;
  /** The url an attempt connects with (credentials.ts `openUrlCredentials`). */
  url(stored: string, endpointId: string): string;
}

/** Most values of each kind kept; the least recently used goes first. */
export const OPENED_MAX_ENTRIES = 2_000;

function keptBy<V>(maxEntries: number) {
  const kept = new Map<string, V>();
  return (key: string, open: () => V): V => {
    const hit = kept.get(key);
    if (hit !== undefined) {
      kept.delete(key); // to the back: the least recently used stays at the front
      kept.set(key, hit);
      return hit;
    }
    const value = open();
    kept.set(key, value);
    if (kept.size > maxEntries) kept.delete(kept.keys().next().value as string);
    return value;
  };
}

export function createOpener(config: BoxSecrets, options: { maxEntries?: number } = {}): Opener {
  const maxEntries = options.maxEntries ?? OPENED_MAX_ENTRIES;
  const box = secretBoxFor(config);
  const secrets = keptBy<string>(maxEntries);
  const headers = keptBy<Record<string, string>>(maxEntries);
  const urls = keptBy<string>(maxEntries);
  return {
    secret: (sealed, endpointId) => secrets(sealed, () => box.open(sealed, endpointId)),
    headers(stored, endpointId) {
      if (!stored) return {};
      const names = Object.keys(stored);
      if (names.length === 0) return {};
      // the sealed values themselves are the key (names in order: a record's headers keep theirs)
      const key = JSON.stringify(names.map((name) => [name, stored[name]]));
      return headers(key, () => Object.freeze(openHeaders(config, stored, endpointId)));
    },
    url: (stored, endpointId) =>
      stored.includes('@') ? urls(stored, () => openUrlCredentials(config, stored, endpointId)) : stored,
  };
}

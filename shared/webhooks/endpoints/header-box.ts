/**
 * Endpoint header values at rest: receivers put credentials there
 * (`Authorization`, `X-Api-Key` …), so each value is sealed like a signing secret, AES-256-GCM
 * under a key derived from the application secret for this purpose alone (`plain:` without one).
 * A value stored before this change (no `enc:` or `plain:` prefix) reads as it is. Header names
 * stay readable: they are shown to every role, the values only to members and admins who ask
 * (`maskHeaders`).
 */
import {
  type BoxSecrets,
  ENC_PREFIX,
  PLAIN_PREFIX,
  type SealedUnder,
  type SecretBox,
  sealedUnder,
  secretBoxOf,
} from '../secret-box.ts';

const PURPOSE = 'endpoint-headers';

/** The box of header values for `config.secret` (and the `previousSecrets` it replaced). */
export const headerBox = (config: BoxSecrets): SecretBox => secretBoxOf(config, PURPOSE);

/** The headers as stored: every value sealed. */
export function sealHeaders(config: BoxSecrets, headers: Record<string, string>): Record<string, string> {
  const box = headerBox(config);
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, box.seal(value)]));
}

/**
 * The headers with their values opened. Throws 500 `APP_WEBHOOK_SECRET_UNREADABLE` when a value
 * was sealed under another application secret (re-seal with `app secrets:seal`).
 */
export function openHeaders(
  config: BoxSecrets,
  stored: Record<string, string> | null | undefined,
  endpointId?: string,
): Record<string, string> {
  if (!stored || Object.keys(stored).length === 0) return {}; // most endpoints: no key derivation at all
  const box = headerBox(config);
  return Object.fromEntries(
    Object.entries(stored ?? {}).map(([name, value]) => [
      name,
      value.startsWith(ENC_PREFIX) || value.startsWith(PLAIN_PREFIX) ? box.open(value, endpointId) : value,
    ]),
  );
}

/** The names with values hidden (null): what is shown unless a member or admin reveals them. */
export function maskHeaders(headers: Record<string, string>): Record<string, null> {
  return Object.fromEntries(Object.keys(headers).map((name) => [name, null]));
}

/**
 * Whether any of the stored values can be read by anyone reading the endpoint store: sealed while
 * the application had no secret (`plain:`), or stored before values were sealed (no prefix).
 * What `app secrets:seal` encrypts and the security audit counts.
 */
export function holdsHeaderValuesInClear(stored: Record<string, string> | null | undefined): boolean {
  return Object.values(stored ?? {}).some((value) => !value.startsWith(ENC_PREFIX));
}

/**
 * How many of the stored values are sealed under one of `config.previousSecrets` (`under:
 * 'previous'`: what `app secrets:seal` moves under the current secret), or under a secret the
 * configuration does not hold (`'unopenable'`: values that cannot be read); the security audit
 * counts both.
 */
export function headerValuesSealed(
  config: BoxSecrets,
  stored: Record<string, string> | null | undefined,
  under: SealedUnder,
): number {
  const values = Object.values(stored ?? {});
  if (values.length === 0) return 0; // most endpoints: no box at all
  const box = headerBox(config);
  return values.filter((value) => sealedUnder(box, value, under)).length;
}

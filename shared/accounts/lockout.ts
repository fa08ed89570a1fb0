/**
 * The sign-in lockout, kept in the shared backend: `auth.lockout.attempts` wrong passwords for one
 * account within `auth.lockout.window` lock that account's sign-in for `auth.lockout.duration`.
 * Counted in the shared backend's entries so every web process agrees, by the store's clock.
 *
 * Each wrong password claims the lowest free slot `lockout:<account>:<i>` (an atomic `add` that
 * lives `window`), so concurrent failures in several processes never count as one; the count is
 * the slots alive, a sliding window. Claiming the last slot sets `lockout:<account>:locked`.
 * Accounts are keyed by a digest of the email's key (user-fields.ts `emailKey`: canonical spelling,
 * lower case), whether or not a user has it: a lock that only existing accounts could reach would
 * tell which emails exist, and every spelling that reaches an account counts toward its one lock.
 *
 * Slot `i` is written with priority `i` (the failures before it) and the lock with `attempts`
 * (`EntryOptions.priority`): a store bounded in memory keeps them past a flood of other
 * emails' first failures (priority 0), so such a flood lifts no lock and takes from a counted
 * account at most its first failure; to evict more it must fail as often per email itself.
 */
import { createHash } from 'node:crypto';
import type { Config } from '../config/index.ts';
import type { KeyValueStore } from '../stores/types.ts';
import { emailKey } from './user-fields.ts';

export type LockoutSettings = Exclude<Config['auth']['lockout'], false>;

const accountKey = (email: string) =>
  `lockout:${createHash('sha256').update(emailKey(email), 'utf8').digest('base64url').slice(0, 32)}`;

/** Milliseconds the account's sign-in stays locked, or 0 when it is not locked. */
export async function lockedFor(store: KeyValueStore, email: string, now: number): Promise<number> {
  const lock = await store.get(`${accountKey(email)}:locked`);
  const until =
    typeof lock === 'object' && lock !== null && !Array.isArray(lock) && typeof lock.until === 'number'
      ? lock.until
      : 0;
  return Math.max(0, until - now);
}

/** Counts a wrong password; the milliseconds the account is now locked for (0 when not locked yet). */
export async function countFailure(
  store: KeyValueStore,
  email: string,
  settings: LockoutSettings,
  now: number,
): Promise<number> {
  const key = accountKey(email);
  for (let slot = 0; slot < settings.attempts; slot++) {
    if (await store.add(`${key}:${slot}`, now, settings.window, { priority: slot })) {
      if (slot < settings.attempts - 1) return 0;
      break;
    }
  }
  // every slot is taken: this failure is the attempts-th within the window
  const lock = { until: now + settings.duration };
  await store.set(`${key}:locked`, lock, settings.duration, { priority: settings.attempts });
  return settings.duration;
}

/** Clears the count and any lock (a successful sign-in, a password reset). */
export async function clearFailures(store: KeyValueStore, email: string, settings: LockoutSettings): Promise<void> {
  const key = accountKey(email);
  await Promise.all([
    store.delete(`${key}:locked`),
    ...Array.from({ length: settings.attempts }, (_, slot) => store.delete(`${key}:${slot}`)),
  ]);
}

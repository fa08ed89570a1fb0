/**
 * What the account functions take as their first argument, made once per process by the entry
 * point (web process, CLI). The clock is injected: session expiry, password links and their
 * tests read `now()`, never the database's clock.
 */
import type { Config } from '../config/index.ts';
import type { Sql } from '../db/connect.ts';
import type { Logger } from '../log/logger.ts';
import type { KeyValueStore } from '../stores/types.ts';
import type { TokenCache } from '../tokens/cache.ts';
import type { Mailer } from './mailer.ts';

export interface AccountDeps {
  config: Pick<Config, 'auth' | 'publicUrl' | 'env'>;
  sql: Sql;
  log: Logger;
  /** Milliseconds since the epoch (default `Date.now`). */
  now: () => number;
  /** Where the sign-in lockout is counted: the shared backend's entries (every web process agrees). */
  lockouts?: KeyValueStore;
  /** Sends the password-reset mails. */
  mailer?: Mailer;
  /** The web process's API token cache (bearer authentication reads through it; disabling a user drops its tokens from it). */
  tokenCache?: TokenCache;
}

export const clockOf = (deps: Pick<AccountDeps, 'now'>): Date => new Date(deps.now());

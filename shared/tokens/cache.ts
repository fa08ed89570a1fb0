/**
 * The bearer tokens one web process has looked up, kept `ttlMs` (`auth.tokenCache`, 5 s) so that
 * a request with a token seen lately needs no statement of its own: the lookup was one more round
 * trip to PostgreSQL before every API request's own work.
 *
 * A kept token is dropped as soon as it changes, whoever changes it: every revocation (the API,
 * the console, `tokens:revoke`, a user's disabling, plain SQL), expiry, role, owner or name
 * change and deletion announces the token's id on `app_api_tokens_changed` when it commits (a
 * trigger: migrations/021_api_token_notices.sql), which every web process LISTENs to; the process
 * that revoked drops it itself before answering. While a process is not listening (before its
 * first LISTEN, the database unreachable, the listening connection being re-established) it keeps
 * nothing, and every (re-)established LISTEN empties the cache, announcements made meanwhile
 * being lost. What is left is an announcement lost without the process knowing yet (its listening
 * connection broken silently): a token is trusted at most `ttlMs` after it was read from the
 * table, the bound of a revocation in that case. Unknown tokens are never kept (a token made a
 * moment later works at once, and made-up tokens cannot fill the cache).
 */
import { createChangeListener } from '../db/change-listener.ts';
import { logConfigurationProblem } from '../db/configuration-problem-log.ts';
import type { Sql } from '../db/connect.ts';
import { singleFlight } from '../db/single-flight.ts';
import { isConnectionError } from '../db/connection-errors.ts';
import type { Logger } from '../log/logger.ts';
import { looksLikeToken, tokenDigest } from './format.ts';
import { selectUsableByDigest } from './store.ts';
import { recordUse, toToken, type ApiToken } from './tokens.ts';

/** Where token changes are announced (migrations/021_api_token_notices.sql); the payload is the token id. */
export const TOKEN_CHANGES_CHANNEL = 'app_api_tokens_changed';

/** Default time a looked-up token is trusted without reading it again (`auth.tokenCache`). */
export const TOKEN_CACHE_TTL_MS = 5_000;
const LISTEN_RETRY_MS = 5_000;

export interface TokenCache {
  /** What {@link verifyToken} answers for `text`: from the cache when the token was read less than `ttlMs` ago. */
  verify(text: unknown): Promise<ApiToken | null>;
  /** Drops these tokens (ids), or every token without an argument. */
  forget(ids?: readonly string[]): void;
  /** Starts listening for token changes unless it is (the first `verify` does too); resolves true once LISTEN is active, false when it failed. */
  listen(): Promise<boolean>;
  /** Calls `listener` with the ids of the tokens dropped (undefined: every token) each time some are; answers its removal. */
  onForget(listener: (ids: readonly string[] | undefined) => void): () => void;
  /** Stops listening and empties the cache; `verify` reads the table from then on. */
  close(): Promise<void>;
  /** How many tokens it keeps now (what it holds in memory). */
  size(): number;
}

export interface TokenCacheOptions {
  /** How long a looked-up token is trusted (default 5 s). */
  ttlMs?: number;
  /** Most tokens kept at once (default 10,000); the least recently read go first. Those read `ttlMs` ago or more go at the next lookup, whatever the count. */
  maxTokens?: number;
  /** Milliseconds clock of the entries' age, the tokens' expiry and their recorded use (default `Date.now`). */
  now?: () => number;
}

interface Entry {
  token: ApiToken;
  /** When it was read from the table. */
  readAt: number;
  /** When its use was last recorded (or read as recorded). */
  usedAt: number;
}

/**
 * Why the cache reads every token for now: a configuration the server refuses is named once
 * (logConfigurationProblem), an unreachable database is a warning without a stack (the
 * requests say so themselves), anything else a warning with its stack. At most one every
 * LISTEN_RETRY_MS.
 */
function logListenFailure(log: Logger, error: unknown): void {
  if (logConfigurationProblem(log, error)) return;
  const what = 'API token cache cannot listen for token changes; looking tokens up on every request';
  if (isConnectionError(error)) log.warn({ reason: (error as Error).message }, what);
  else log.warn({ err: error }, what);
}

/**
 * The cache of one web process; `close()` it at shutdown, before its pool ends. Listening starts
 * with the first `verify`, so making it needs no database.
 */
export function createTokenCache(deps: { sql: Sql; log: Logger }, options: TokenCacheOptions = {}): TokenCache {
  const ttl = options.ttlMs ?? TOKEN_CACHE_TTL_MS;
  const maxTokens = options.maxTokens ?? 10_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, Entry>(); // by digest
  const loading = new Map<string, Promise<ApiToken | null>>();
  const listeners = new Set<(ids: readonly string[] | undefined) => void>();
  // bumped by every drop: a lookup that a drop overtook answers its request but is not kept
  let epoch = 0;
  let closed = false;

  function forget(ids?: readonly string[]): void {
    epoch += 1;
    loading.clear();
    if (ids === undefined) {
      entries.clear();
    } else {
      const dropped = new Set(ids);
      for (const [digest, entry] of entries) if (dropped.has(entry.token.id)) entries.delete(digest);
    }
    for (const listener of listeners) listener(ids);
  }

  function onNotify(payload: string): void {
    forget(payload.length > 0 ? [payload] : undefined);
  }

  const changes = createChangeListener({
    sql: deps.sql,
    channel: TOKEN_CHANGES_CHANNEL,
    onNotify,
    onConnect: () => forget(),
    onFailure: (error) => logListenFailure(deps.log, error),
    retryMs: LISTEN_RETRY_MS,
    now,
  });

  /**
   * Keeps `entry`, and drops the tokens read `ttlMs` ago or more (never answered from the cache
   * again) and the oldest past `maxTokens`. Entries are in the order they were read, so the ones
   * to drop are at the front: a token used once and not again is held `ttlMs`, not until
   * `maxTokens` others have pushed it out.
   */
  function keep(digest: string, entry: Entry): void {
    entries.delete(digest);
    entries.set(digest, entry);
    for (const [oldest, kept] of entries) {
      if (entries.size <= maxTokens && entry.readAt - kept.readAt < ttl) break;
      entries.delete(oldest);
    }
  }

  /** The usable token of `digest` from the table, kept when no drop overtook the lookup and the process listens. */
  function lookUp(digest: string): Promise<ApiToken | null> {
    return singleFlight(loading, digest, () => {
      const seen = epoch;
      const at = now();
      return selectUsableByDigest(deps.sql, digest).then((row) => {
        if (row === undefined) return null;
        const token = toToken(row);
        const lastUsed = token.lastUsedAt?.getTime() ?? -Infinity;
        const usedAt = recordUse(deps, token.id, lastUsed, at) ? at : lastUsed;
        if (changes.listening() && !closed && epoch === seen) keep(digest, { token, readAt: at, usedAt });
        return token;
      });
    });
  }

  async function verify(text: unknown): Promise<ApiToken | null> {
    if (!looksLikeToken(text)) return null;
    const digest = tokenDigest(text);
    if (closed) return lookUp(digest);
    changes.ensure();
    const entry = entries.get(digest);
    const at = now();
    if (entry !== undefined) {
      const expiresAt = entry.token.expiresAt?.getTime() ?? Infinity;
      if (at - entry.readAt < ttl && at < expiresAt && changes.listening()) {
        if (recordUse(deps, entry.token.id, entry.usedAt, at)) entry.usedAt = at;
        return entry.token;
      }
      entries.delete(digest);
    }
    return lookUp(digest);
  }

  return {
    verify,
    forget,
    listen() {
      changes.ensure();
      return changes.attempt();
    },
    onForget(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    async close() {
      closed = true;
      forget();
      await changes.close();
    },
    size: () => entries.size,
  };
}

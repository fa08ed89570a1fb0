/**
 * The per-owner endpoint lookup of emit (an endpoint lookup is cached 10 seconds per owner).
 * An entry holds the enabled endpoints of exactly one owner (the null
 * owner being its own key) with only what matching needs: id, event patterns and the
 * subscription filter, compiled once when the entry is loaded (so an emit never parses a
 * filter); never a secret, url or header. Entries live `ttlMs` and are dropped whenever an endpoint of that owner changes:
 * at once in this process (the change functions call `invalidate`), and in every other process
 * through LISTEN on `app_webhooks_changed`. While this process is not listening (the database
 * was unreachable, or the listening connection is being re-established) nothing is kept, so a
 * missed notification can never leave a stale entry; every re-established LISTEN empties the
 * cache for the same reason.
 */
import type { Config } from '../../config/index.ts';
import { createChangeListener } from '../../db/change-listener.ts';
import type { Sql } from '../../db/connect.ts';
import { singleFlight } from '../../db/single-flight.ts';
import type { Logger } from '../../log/logger.ts';
import { ENDPOINTS_CHANGED_CHANNEL, endpointStoreOf } from './store.ts';
import type { EndpointStore } from '../endpoint-stores/types.ts';
import { compileStoredFilter, type CompiledFilter } from '../filters/grammar.ts';

/** What the cache keeps of an endpoint. */
export interface CachedEndpoint {
  readonly id: string;
  readonly events: readonly string[];
  /** Its filter, ready to run; null: none. */
  readonly filter: CompiledFilter | null;
}

export interface EndpointCache {
  /** The enabled endpoints of exactly `owner` (null: the endpoints without owner). */
  get(owner: string | null): Promise<readonly CachedEndpoint[]>;
  /** Drops `owner`'s entry, or every entry when called without an argument. */
  invalidate(owner?: string | null): void;
  /** Stops listening and empties the cache. */
  close(): Promise<void>;
}

export interface EndpointCacheOptions {
  /** How long an entry is used (default 10 s). */
  ttlMs?: number;
  /** Most owners kept at once (default 10,000); the oldest entries go first. */
  maxOwners?: number;
  /** Milliseconds clock (tests). */
  now?: () => number;
}

/** Default life of an entry: 10 seconds. */
export const ENDPOINT_CACHE_TTL_MS = 10_000;
const LISTEN_RETRY_MS = 5_000;

/**
 * The enabled endpoints of exactly `owner`, straight from the endpoint store, their filters
 * compiled. A stored filter that no longer passes the checks (written by other software) matches
 * nothing, with a warning in the log.
 */
export async function loadEnabledEndpoints(
  deps: { config: Pick<Config, 'webhooks'>; sql: Sql; endpoints?: EndpointStore; log?: Logger },
  owner: string | null,
): Promise<CachedEndpoint[]> {
  const rows = await endpointStoreOf(deps).subscribers(owner);
  return rows.map((row) =>
    Object.freeze({
      id: row.id,
      events: Object.freeze([...row.events]),
      filter: compileStoredFilter(row.filter, (error) =>
        deps.log?.warn(
          { endpoint: row.id, err: error },
          'webhook endpoint has a stored filter that does not pass the checks: it receives no event until the filter is replaced',
        ),
      ),
    }),
  );
}

/**
 * Creates the cache of one process (web or worker); `close()` it at shutdown. Listening starts
 * with the first `get`, so creating it needs no database.
 */
export function createEndpointCache(
  deps: { config: Config; sql: Sql; log: Logger; endpoints?: EndpointStore },
  options: EndpointCacheOptions = {},
): EndpointCache {
  const ttl = options.ttlMs ?? ENDPOINT_CACHE_TTL_MS;
  const maxOwners = options.maxOwners ?? 10_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string | null, { endpoints: readonly CachedEndpoint[]; expiresAt: number }>();
  const loading = new Map<string | null, Promise<readonly CachedEndpoint[]>>();
  const versions = new Map<string | null, number>();
  let epoch = 0;
  let closed = false;

  const version = (owner: string | null) => `${epoch}:${versions.get(owner) ?? 0}`;

  function invalidate(owner?: string | null): void {
    if (owner === undefined) {
      epoch += 1;
      entries.clear();
      loading.clear();
      return;
    }
    versions.set(owner, (versions.get(owner) ?? 0) + 1);
    entries.delete(owner);
    loading.delete(owner);
  }

  function onNotify(payload: string): void {
    try {
      const parsed = JSON.parse(payload) as { owner?: unknown };
      if (
        parsed !== null &&
        typeof parsed === 'object' &&
        (typeof parsed.owner === 'string' || parsed.owner === null)
      ) {
        invalidate(parsed.owner);
        return;
      }
    } catch {
      /* not ours: drop everything below */
    }
    invalidate();
  }

  const changes = createChangeListener({
    sql: deps.sql,
    channel: ENDPOINTS_CHANGED_CHANNEL,
    onNotify,
    onConnect: () => invalidate(),
    onFailure: (error) =>
      deps.log.warn({ err: error }, 'webhook endpoint cache cannot listen for changes; reading endpoints uncached'),
    retryMs: LISTEN_RETRY_MS,
    now,
  });

  function remember(owner: string | null, endpoints: readonly CachedEndpoint[]): void {
    entries.delete(owner);
    entries.set(owner, { endpoints, expiresAt: now() + ttl });
    if (entries.size > maxOwners) {
      const time = now();
      for (const [key, entry] of entries) if (entry.expiresAt <= time) entries.delete(key);
      while (entries.size > maxOwners) entries.delete(entries.keys().next().value as string | null);
    }
  }

  async function get(owner: string | null): Promise<readonly CachedEndpoint[]> {
    if (closed) return loadEnabledEndpoints(deps, owner);
    changes.ensure();
    const entry = entries.get(owner);
    if (entry !== undefined && entry.expiresAt > now()) return entry.endpoints;
    return singleFlight(loading, owner, () => {
      const seen = version(owner);
      return loadEnabledEndpoints(deps, owner).then((endpoints) => {
        const frozen = Object.freeze(endpoints);
        if (changes.listening() && !closed && version(owner) === seen) remember(owner, frozen);
        return frozen;
      });
    });
  }

  async function close(): Promise<void> {
    closed = true;
    invalidate();
    await changes.close();
  }

  return { get, invalidate, close };
}

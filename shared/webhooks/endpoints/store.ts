/**
 * The endpoint records as the core sees them, whatever store holds them (`webhooks.store`:
 * endpoint-stores/): the record shape shown to callers, reads by id with the tenant scope applied,
 * and the three writes (create, change, delete). Each write keeps the endpoint's gate row in
 * PostgreSQL (migrations/025: owner, enabled, ordering, rate limit, version) equal to the record,
 * so the pipeline reads the gate and never the store, and announces the change to every
 * process's endpoint cache (cache.ts).
 *
 * Inside a request, the write to the store is the request's commit (shared/db/commit-deadline.ts:
 * claimed by the store's transaction on the service's pool, by the guard on any other store), so
 * a registration, change or removal answered 503 by its timeout is not made afterwards. The gate
 * row a registration writes first prepares that write and is taken back when it fails, so it
 * claims nothing (`unclaimed`): the registration can still time out while its record waits. The
 * gate writes that follow a record come after its claim. Each gate write is a transaction of its
 * own (shared/db/transaction.ts).
 */
import { openHeaders } from './header-box.ts';
import { maskUrl } from '../destinations/credentials.ts';
import type { SigningScheme } from '../signing.ts';
import type { Ordering } from './fields.ts';
import { isIdText } from '../ids.ts';
import { AppError, notFound } from '../../errors/app-error.ts';
import type { Config } from '../../config/index.ts';
import { assertInScope, type TenantScope } from '../../access/tenant-scope.ts';
import { clip, describeValue } from '../../errors/describe-value.ts';
import type { Sql } from '../../db/connect.ts';
import type { WebhookDeps } from '../deps.ts';
import type { EndpointStore, StoredEndpoint } from '../endpoint-stores/types.ts';
import { postgresqlStore } from '../endpoint-stores/postgresql.ts';
import type { WebhookFilter } from '../filters/grammar.ts';
import { lateCall } from '../endpoint-stores/guard.ts';
import { unclaimed } from '../../db/commit-deadline.ts';
import { outsideRequest } from '../../db/request-statements.ts';
import { transaction } from '../../db/transaction.ts';

/** NOTIFY channel announcing a change to an endpoint; the payload is `{"owner": <owner|null>}`. */
export const ENDPOINTS_CHANGED_CHANNEL = 'app_webhooks_changed';

/** A webhook endpoint as the programmatic interface and `--json` present it (never a secret). */
export interface Endpoint {
  id: string;
  /** Where deliveries go; a broker url's credentials shown as `***` (destinations/credentials.ts). */
  url: string;
  events: string[];
  /** The subscription filter an event must match as well as `events` (shared/webhooks/filters/); null: none. */
  filter: WebhookFilter | null;
  owner: string | null;
  description: string | null;
  headers: Record<string, string>;
  /** False once the endpoint is disabled (by an operator or by a 410 from the receiver). */
  enabled: boolean;
  disabledAt: Date | null;
  disabledReason: string | null;
  /** How its deliveries are signed: `hmac-sha256` (`v1,`) or `ed25519` (`v1a,`). */
  signing: SigningScheme;
  /** Most deliveries per second across every worker; null: no limit. */
  rateLimit: number | null;
  /** `fifo`: one delivery at a time, in emit order; `none`: in parallel. */
  ordering: Ordering;
  createdAt: Date;
  updatedAt: Date;
}

export { maskedEndpoint, type ShownEndpoint } from './shown.ts';
import { maskedEndpoint, type ShownEndpoint } from './shown.ts';

/** Anything that runs tagged-template queries: the pool or a transaction. */
export type { Queryable } from '../../db/connect.ts';
import type { Queryable } from '../../db/connect.ts';

/**
 * The record of a stored endpoint as every face shows it: its header values opened
 * (header-box.ts), its url's credentials masked, its secrets left out.
 */
export function toEndpoint(stored: StoredEndpoint, config: Pick<Config, 'secret'>): Endpoint {
  return {
    id: stored.id,
    url: maskUrl(stored.url),
    events: stored.events,
    filter: stored.filter,
    owner: stored.owner,
    description: stored.description,
    headers: openHeaders(config, stored.headers, stored.id),
    enabled: stored.disabledAt === null,
    disabledAt: stored.disabledAt,
    disabledReason: stored.disabledReason,
    signing: stored.signing,
    rateLimit: stored.rateLimit,
    ordering: stored.ordering,
    createdAt: stored.createdAt,
    updatedAt: stored.updatedAt,
  };
}

/**
 * The record of a stored endpoint as a reader is shown it: as {@link toEndpoint}, its header
 * values opened only when `revealHeaders` (the reader may and asked), else null without opening them.
 */
export function toShownEndpoint(
  stored: StoredEndpoint,
  config: Pick<Config, 'secret'>,
  revealHeaders: boolean,
): ShownEndpoint {
  if (revealHeaders) return toEndpoint(stored, config) as unknown as ShownEndpoint;
  // the values stay sealed: a reader who did not reveal them costs no key derivation
  return maskedEndpoint(toEndpoint({ ...stored, headers: {} }, config), stored.headers ?? {});
}

const defaultStores = new WeakMap<Sql, Map<string, EndpointStore>>();

/**
 * The endpoint store of `deps`: the one the process opened (`deps.endpoints`), else the table
 * `webhooks.table` in the service's own database (tests and tools that build deps by hand).
 */
export function endpointStoreOf(deps: {
  config: Pick<Config, 'webhooks'>;
  sql: Sql;
  endpoints?: EndpointStore;
}): EndpointStore {
  if (deps.endpoints !== undefined) return deps.endpoints;
  let byTable = defaultStores.get(deps.sql);
  if (byTable === undefined) {
    byTable = new Map();
    defaultStores.set(deps.sql, byTable);
  }
  const table = deps.config.webhooks.table;
  let store = byTable.get(table);
  if (store === undefined) {
    store = postgresqlStore('default', deps.sql, table, { owned: false });
    byTable.set(table, store);
  }
  return store;
}

/** AppError 404 `APP_WEBHOOK_NOT_FOUND` for an unknown endpoint id. */
export const endpointNotFound = (id: unknown) =>
  notFound(`webhook endpoint ${typeof id === 'string' ? clip(id) : describeValue(id)} does not exist`, {
    code: 'APP_WEBHOOK_NOT_FOUND',
    data: { id },
  });

/**
 * The stored endpoint `id`, or a 404 `APP_WEBHOOK_NOT_FOUND`; with `scope`, an endpoint outside
 * it is the same 404 (tenant-scope.ts).
 */
export async function endpointRecord(
  deps: Pick<WebhookDeps, 'config' | 'sql' | 'endpoints'>,
  id: unknown,
  options: { scope?: TenantScope } = {},
): Promise<StoredEndpoint> {
  if (!isIdText(id)) throw endpointNotFound(id);
  const stored = await endpointStoreOf(deps).get(id);
  if (stored === null) throw endpointNotFound(id);
  if (options.scope !== undefined) assertInScope(options.scope, stored.owner, () => endpointNotFound(id));
  return stored;
}

/**
 * Makes the gate row of `endpoint` (migrations/025) what the record says, unless it already holds
 * a later version (a concurrent change that was written after this one).
 */
export async function syncGate(sql: Queryable, endpoint: StoredEndpoint): Promise<void> {
  await sql`
    insert into app_endpoint_gate (endpoint_id, owner, disabled_at, ordering, rate_limit, enabled_at, version)
    values (${endpoint.id}, ${endpoint.owner}, ${endpoint.disabledAt}, ${endpoint.ordering}, ${endpoint.rateLimit},
            ${endpoint.enabledAt}, ${endpoint.version})
    on conflict (endpoint_id) do update
      set owner = excluded.owner, disabled_at = excluded.disabled_at, ordering = excluded.ordering,
          rate_limit = excluded.rate_limit, enabled_at = excluded.enabled_at, version = excluded.version
      where app_endpoint_gate.version <= excluded.version`;
}

/**
 * Announces, from inside the caller's transaction (so only once it commits), that endpoints of
 * these owners changed; every process's cache drops those owners.
 */
export async function notifyEndpointsChanged(sql: Queryable, owners: ReadonlyArray<string | null>): Promise<void> {
  for (const owner of new Set(owners)) {
    await sql`select pg_notify(${ENDPOINTS_CHANGED_CHANNEL}, ${JSON.stringify({ owner })})`;
  }
}

/** Most tries of a change that keeps meeting a concurrent one. */
const CHANGE_TRIES = 10;

/**
 * When `error` is the guard's 503 for a store call that did not answer in time (guard.ts
 * `lateCall`), runs `follow` with the call's outcome if the call completes after all: the caller
 * was told the write failed, so what landed is taken back or made known, and the store and the
 * gate rows agree again. A call that fails in the end needs nothing. The following belongs to no
 * request: the one that made the call has been answered.
 */
function followLateWrite<T>(
  deps: Pick<WebhookDeps, 'log'>,
  error: unknown,
  late: { endpoint: string; write: string; followed: string },
  follow: (outcome: T) => Promise<void>,
): void {
  const call = lateCall(error) as Promise<T> | undefined;
  if (call === undefined) return;
  const what = `the ${late.write} of endpoint ${late.endpoint} completed in the store after it was answered 503`;
  call.then(
    (outcome) =>
      outsideRequest(() => follow(outcome)).then(
        () => deps.log.warn({ endpoint: late.endpoint }, `${what}; ${late.followed}`),
        (followError: unknown) =>
          deps.log.error({ err: followError, endpoint: late.endpoint }, `${what}, and could not be followed`),
      ),
    () => {}, // failed in the end: nothing was written
  );
}

/** Makes the gate row and every process's cache follow a record the store now holds. */
async function announceChange(deps: WebhookDeps, before: StoredEndpoint, after: StoredEndpoint): Promise<void> {
  await transaction(deps.sql, async (tx) => {
    await syncGate(tx, after);
    await notifyEndpointsChanged(tx, [before.owner, after.owner]);
  });
  deps.cache?.invalidate(before.owner);
  deps.cache?.invalidate(after.owner);
}

/** Removes the gate row of a removed record (its deliveries and attempts go with it) and tells the caches. */
async function announceRemoval(deps: WebhookDeps, record: StoredEndpoint): Promise<void> {
  await transaction(deps.sql, async (tx) => {
    await tx`delete from app_endpoint_gate where endpoint_id = ${record.id}`;
    await notifyEndpointsChanged(tx, [record.owner]);
  });
  deps.cache?.invalidate(record.owner);
}

/**
 * Stores a new endpoint: its gate row first (a gate without its record reaches no one: emits find
 * endpoints in the store), then the record; when the store refuses (or the request timed out
 * before the record's commit), the gate row goes again, so a failed registration leaves nothing
 * behind. An insert that did not answer in time and lands later is removed again when it lands,
 * for the same reason.
 */
export async function createEndpoint(deps: WebhookDeps, endpoint: StoredEndpoint): Promise<void> {
  // prepares the record's write and is taken back with it: not the request's commit (see the top)
  await unclaimed(() => transaction(deps.sql, (tx) => syncGate(tx, endpoint)));
  const store = endpointStoreOf(deps);
  try {
    await store.insert(endpoint);
  } catch (error) {
    // taken back even when the request has been answered 503 by its timeout, which refuses its statements
    await outsideRequest(() =>
      transaction(deps.sql, (tx) => tx`delete from app_endpoint_gate where endpoint_id = ${endpoint.id}`),
    ).catch(() => {});
    const late = { endpoint: endpoint.id, write: 'registration', followed: 'removed again' };
    followLateWrite(deps, error, late, async () => {
      await store.delete(endpoint.id);
    });
    throw error;
  }
  await notifyEndpointsChanged(deps.sql, [endpoint.owner]); // a notice, no row: sent as it is
  deps.cache?.invalidate(endpoint.owner);
}

/**
 * Reads endpoint `id` (in `scope`), gives it to `change` and stores what it answers as the next
 * version; when another process changed the endpoint in between, reads it again and asks again
 * (`change` must be a pure function of the record). Then the gate follows and the caches are told.
 * Answers the record before and after.
 */
export async function changeEndpoint(
  deps: WebhookDeps,
  id: unknown,
  scope: TenantScope | undefined,
  change: (current: StoredEndpoint, now: Date) => Omit<StoredEndpoint, 'version' | 'updatedAt'>,
): Promise<{ before: StoredEndpoint; after: StoredEndpoint }> {
  const store = endpointStoreOf(deps);
  for (let attempt = 1; ; attempt++) {
    const before = await endpointRecord(deps, id, { scope });
    const now = new Date();
    const after: StoredEndpoint = {
      ...change(before, now),
      id: before.id,
      updatedAt: now,
      version: before.version + 1,
    };
    let updated: boolean;
    try {
      updated = await store.update(after, before.version);
    } catch (error) {
      // an update that lands after its 503 is the record now: the gate follows it
      const late = { endpoint: before.id, write: 'change', followed: 'its gate row follows it' };
      followLateWrite<boolean>(deps, error, late, async (landed) => {
        if (landed) await announceChange(deps, before, after);
      });
      throw error;
    }
    if (updated) {
      await announceChange(deps, before, after);
      return { before, after };
    }
    if (attempt >= CHANGE_TRIES) {
      throw new AppError(409, `webhook endpoint ${before.id} kept changing while this change was applied; try again`, {
        code: 'APP_WEBHOOK_CONFLICT',
        expose: true,
        data: { id: before.id },
      });
    }
  }
}

/**
 * Removes endpoint `id` (in `scope`): the record, then its gate row, which takes its deliveries
 * and attempts with it (foreign keys). Answers the removed record; 404 when it is not there.
 */
export async function deleteEndpoint(deps: WebhookDeps, id: unknown, scope: TenantScope): Promise<StoredEndpoint> {
  const record = await endpointRecord(deps, id, { scope });
  let deleted: boolean;
  try {
    deleted = await endpointStoreOf(deps).delete(record.id);
  } catch (error) {
    // a removal that lands after its 503 takes the gate row and the deliveries with it all the same
    const late = { endpoint: record.id, write: 'removal', followed: 'its gate row and deliveries removed too' };
    followLateWrite<boolean>(deps, error, late, async (gone) => {
      if (gone) await announceRemoval(deps, record);
    });
    throw error;
  }
  if (!deleted) throw endpointNotFound(id);
  await announceRemoval(deps, record);
  return record;
}

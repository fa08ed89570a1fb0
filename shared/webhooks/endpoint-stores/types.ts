/**
 * The endpoint store: where the endpoint table lives (`webhooks.store`, one of the named
 * `stores`). Every adapter (postgresql, mysql, mssql, drizzle, mongoose, disk) implements this
 * interface and nothing more; the core above it checks input, applies tenant scopes, seals
 * secrets and header values before they reach a store, and mirrors what the delivery pipeline
 * needs (owner, enabled, ordering, rate limit) into PostgreSQL beside the deliveries
 * (`app_endpoint_gate`), so claims, fairness and listings of deliveries never ask the store.
 *
 * Records are plain data: an adapter stores every field and gives it back unchanged (dates as
 * `Date` to the millisecond, strings as given, unicode included). Writes are whole records
 * guarded by `version` (optimistic concurrency), so two processes changing one endpoint never
 * lose a change on any adapter: the loser sees `false` and the core reads and tries again.
 */
import type { SigningScheme } from '../signing.ts';

/** The adapters a store may name (`stores.<name>.adapter`). */
export const ADAPTERS = ['postgresql', 'mysql', 'mssql', 'drizzle', 'mongoose', 'disk'] as const;
export type AdapterName = (typeof ADAPTERS)[number];

/** Delivery order of an endpoint: `fifo` one at a time in emit order, `none` in parallel. */
export type StoredOrdering = 'none' | 'fifo';

/** A signing secret as stored: sealed by the core (`enc:v1:…`, or `plain:…` without an application secret). */
export interface StoredSecret {
  sealed: string;
  createdAt: Date;
  /** When it stops signing (end of a rotation grace period); null: no end. */
  expiresAt: Date | null;
}

/** An endpoint as every store holds it. */
export interface StoredEndpoint {
  /** `ep_…`, made by the core; the key. */
  id: string;
  url: string;
  /** Event-type patterns (`order.created`, `order.*`, `*`); at least one. */
  events: string[];
  /**
   * The subscription filter (shared/webhooks/filters/): a JSON document an event must match as
   * well as the patterns; null: none. Stored and given back as the same JSON (an object's keys
   * may come back in another order).
   */
  filter: Record<string, unknown> | null;
  /** The tenant; null: no owner. */
  owner: string | null;
  description: string | null;
  /** Extra request headers: names as given, values sealed by the core. */
  headers: Record<string, string>;
  /** Signing secrets, newest last, expired ones possibly still present (the core ignores them). */
  secrets: StoredSecret[];
  signing: SigningScheme;
  /** Most deliveries per second; null: no limit. */
  rateLimit: number | null;
  ordering: StoredOrdering;
  /** Null while enabled. */
  disabledAt: Date | null;
  disabledReason: string | null;
  /** When it was last enabled again after being disabled; null: never disabled. */
  enabledAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /** 1 on insert, one more at every update (the guard of `update`). */
  version: number;
}

/** A listing's filter; every condition is optional and they combine with AND. */
export interface StoredEndpointQuery {
  /** Undefined: any owner; null: only endpoints without owner; a string: only that owner's. */
  owner?: string | null;
  /** true: enabled only (`disabledAt` null); false: disabled only. */
  enabled?: boolean;
  /** Only endpoints with at least one of these exact patterns in `events` (the core expands event names to patterns). */
  patterns?: readonly string[];
  /** Page number from 1 (default 1). */
  page?: number;
  /** Records per page; undefined: every match on one page. */
  perPage?: number;
}

/** One page of a listing, in creation order (`createdAt`, then `id`). */
export interface StoredEndpointPage {
  records: StoredEndpoint[];
  page: number;
  /** As asked; the number of records when the listing was not paged. */
  perPage: number;
  /** Every match, not only this page's. */
  total: number;
  /** ceil(total / perPage); 0 when there is no match, 1 when not paged and there are matches. */
  pages: number;
}

/** What an emit needs of an endpoint to decide whether it receives an event. */
export interface SubscriberEndpoint {
  id: string;
  events: string[];
  /** Its subscription filter, null when it has none. */
  filter: Record<string, unknown> | null;
}

export interface EndpointStore {
  /** The store's name in `stores` (`default` …). */
  readonly name: string;
  readonly adapter: AdapterName;
  /** True for the endpoint table in the service's own database (made and upgraded by the migrations). */
  readonly serviceDatabase?: boolean;
  /** Creates the table (collection, directory) and its indexes when missing; idempotent, safe from several processes at once. */
  install(): Promise<void>;
  /** Answers when the store can serve; throws (or never settles) when it cannot. Used by health. */
  ping(): Promise<void>;
  /** Closes the connections it opened (never the service's own PostgreSQL pool). */
  close(): Promise<void>;

  /** The endpoint with this id, or null. */
  get(id: string): Promise<StoredEndpoint | null>;
  /** The endpoints with these ids that exist, in any order. */
  getMany(ids: readonly string[]): Promise<StoredEndpoint[]>;
  list(query: StoredEndpointQuery): Promise<StoredEndpointPage>;
  /** The enabled endpoints of exactly `owner` (null: those without owner), by id. */
  subscribers(owner: string | null): Promise<SubscriberEndpoint[]>;

  /** Adds a new endpoint (its `version` is 1); throws when the id is taken. */
  insert(endpoint: StoredEndpoint): Promise<void>;
  /**
   * Replaces the endpoint `endpoint.id` with `endpoint` (whose `version` is the stored one plus
   * one) if the stored version is still `expectedVersion`; answers false, changing nothing, when
   * it is not or the endpoint is gone.
   */
  update(endpoint: StoredEndpoint, expectedVersion: number): Promise<boolean>;
  /** Removes the endpoint; answers whether it existed. */
  delete(id: string): Promise<boolean>;
}

/** The options of one named store (`stores.<name>`), as the configuration gives them. */
export interface StoreOptions {
  adapter: AdapterName;
  /** Connection URL (postgresql, mysql, mssql, mongoose, drizzle). */
  url?: string;
  /** Directory of a disk store. */
  path?: string;
  /** The SQL dialect under drizzle. */
  dialect?: 'postgresql' | 'mysql';
}

/** What opening a store is given: its name and options, the endpoint table's name and a logger. */
export interface StoreContext {
  name: string;
  options: StoreOptions;
  /** `webhooks.table`: the table (collection, file name stem) of the endpoints. */
  table: string;
}

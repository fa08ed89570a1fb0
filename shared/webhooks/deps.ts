/**
 * What the webhook core functions take as their first argument. One object per process, made
 * by the entry point (web, worker, CLI); nothing here is a module-level singleton.
 */
import type { Config } from '../config/index.ts';
import type { Sql } from '../db/connect.ts';
import type { Logger } from '../log/logger.ts';
import type { HostLookup } from './address-rules.ts';
import type { EndpointCache } from './endpoints/cache.ts';
import type { EndpointStore } from './endpoint-stores/types.ts';
import type { Metrics } from '../metrics/registry.ts';

export interface WebhookDeps {
  config: Config;
  sql: Sql;
  log: Logger;
  /** Resolves host names for the registration check (default: the system resolver). */
  lookup?: HostLookup;
  /**
   * The per-owner endpoint cache of this process. Emit reads through it when given (else from
   * the table); every change to an endpoint invalidates it at once here, and in other processes
   * through NOTIFY.
   */
  cache?: EndpointCache;
  /**
   * The store that holds the endpoint table (`webhooks.store`), opened by the entry point; absent:
   * `webhooks.table` in this database (endpoints/store.ts `endpointStoreOf`).
   */
  endpoints?: EndpointStore;
  /**
   * The process's metrics (web, worker): emits count the deliveries their filters left out, and
   * every disable of an endpoint its reason. Absent (the CLI): nothing is counted.
   */
  metrics?: Pick<Metrics, 'filteredOut' | 'endpointsDisabled'>;
}

/**
 * The webhook programmatic interface: `createWebhooks`
 * binds the services of endpoints/, events/ and deliveries/ to one process's dependencies, its
 * endpoint cache and the operator (shared/access/actor.ts `OPERATOR`: an admin of every
 * tenant), giving `webhooks.register(options)`,
 * `webhooks.emit(event, payload, {owner})`, `webhooks.rotate(id, {grace})` and the inspecting
 * and changing operations. The services themselves take `(deps, actor, input)`, reads and
 * changes alike.
 */
import type { Config } from '../config/index.ts';
import type { Sql } from '../db/connect.ts';
import type { Logger } from '../log/logger.ts';
import type { HostLookup } from './address-rules.ts';
import { createEndpointCache, type EndpointCache, type EndpointCacheOptions } from './endpoints/cache.ts';
import type { WebhookDeps } from './deps.ts';
import {
  registerEndpoint,
  updateEndpoint,
  disableEndpoint,
  enableEndpoint,
  removeEndpoint,
  listEndpoints,
  endpointStatuses,
  showEndpoint,
  revealEndpoint,
  rotateSecret,
  type RegisterOptions,
  type RegisteredEndpoint,
  type EndpointPatch,
  type EndpointDetails,
  type EndpointQuery,
  type EndpointStatus,
  type Endpoint,
  type ShownEndpoint,
} from './endpoints/index.ts';
import { emit, sendToEndpoint, type EmitOptions, type Delivery } from './events/index.ts';
import { OPERATOR } from '../access/actor.ts';
import { verify } from './signing.ts';

export { emit, verify, createEndpointCache };
export { ensureWebhookTables } from './install.ts';
export { ensureWebhookTablesAtBoot, warnIfSecretsUnencrypted, UNENCRYPTED_SECRETS_WARNING } from './boot.ts';
export { signingSecrets, revealSecrets } from './endpoints/secrets.ts';
export { DELIVERY_TASK } from './deliveries/job.ts';
export { ENDPOINTS_CHANGED_CHANNEL } from './endpoints/store.ts';
export { ALL_TENANTS, tenantScope, type TenantScope } from '../access/tenant-scope.ts';
export type {
  RegisterOptions,
  RegisteredEndpoint,
  EndpointPatch,
  EndpointDetails,
  EndpointStatus,
  EmitOptions,
  Delivery,
  Endpoint,
  ShownEndpoint,
  EndpointCache,
  WebhookDeps,
};
export type { DeliveryJobPayload } from './deliveries/job.ts';

/** Filters of `list` and `status`: owner (null: owner-less endpoints only) and state. */
export type ListOptions = Pick<EndpointQuery, 'owner' | 'enabled'>;

/** The bound interface of one process. */
export interface Webhooks {
  register(options: RegisterOptions): Promise<RegisteredEndpoint>;
  emit(event: string, payload: unknown, options?: EmitOptions): Promise<Delivery[]>;
  rotate(id: string, options?: { grace?: number }): Promise<{ secret: string; graceEndsAt: Date | null }>;
  send(id: string, event: string, payload: unknown): Promise<Delivery>;
  update(id: string, patch: EndpointPatch): Promise<Endpoint>;
  disable(id: string, options?: { reason?: string }): Promise<Endpoint>;
  enable(id: string): Promise<Endpoint>;
  remove(id: string): Promise<{ id: string; removed: true }>;
  /** Header values null: `show(id, {reveal: true})` reveals them. */
  list(options?: ListOptions): Promise<ShownEndpoint[]>;
  show(id: string, options?: { reveal?: boolean }): Promise<EndpointDetails>;
  status(options?: ListOptions): Promise<EndpointStatus[]>;
  /** The endpoint cache of this interface (emit reads through it). */
  readonly cache: EndpointCache;
  /** Stops the cache's LISTEN when this interface created the cache; the pool stays the caller's. */
  close(): Promise<void>;
}

/**
 * The webhook interface of a process over `{config, sql, log}`, with its own endpoint cache
 * (created here unless `deps.cache` is given). Call `close()` at shutdown.
 */
export function createWebhooks(
  deps: { config: Config; sql: Sql; log: Logger; lookup?: HostLookup; cache?: EndpointCache },
  options: { cache?: EndpointCacheOptions } = {},
): Webhooks {
  const cache = deps.cache ?? createEndpointCache(deps, options.cache);
  const bound: WebhookDeps = { ...deps, cache };
  return {
    register: (input) => registerEndpoint(bound, OPERATOR, input),
    emit: (event, payload, emitOptions) => emit(bound, event, payload, emitOptions),
    rotate: (id, rotateOptions) => rotateSecret(bound, OPERATOR, id, rotateOptions),
    send: (id, event, payload) => sendToEndpoint(bound, OPERATOR, id, event, payload),
    update: (id, patch) => updateEndpoint(bound, OPERATOR, id, patch),
    disable: (id, disableOptions) => disableEndpoint(bound, OPERATOR, id, disableOptions),
    enable: (id) => enableEndpoint(bound, OPERATOR, id),
    remove: (id) => removeEndpoint(bound, OPERATOR, id),
    list: async (listOptions) => (await listEndpoints(bound, OPERATOR, listOptions)).records,
    show: (id, showOptions) =>
      showOptions?.reveal ? revealEndpoint(bound, OPERATOR, id) : showEndpoint(bound, OPERATOR, id),
    status: (listOptions) => endpointStatuses(bound, OPERATOR, listOptions),
    cache,
    close: async () => {
      if (deps.cache === undefined) await cache.close();
    },
  };
}

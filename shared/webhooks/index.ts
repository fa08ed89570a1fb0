/**
 * The webhook programmatic interface (spec: "Webhook programmatic interface"): `createWebhooks`
 * binds the core functions to one process's dependencies and its endpoint cache, giving
 * `webhooks.register(options)`, `webhooks.emit(event, payload, {owner})`,
 * `webhooks.rotate(id, {grace})` and the inspecting and changing operations. Every function is
 * also exported alone, taking the dependencies as its first argument.
 */
import type { Config } from '../config/index.ts';
import type { Sql } from '../db/connect.ts';
import type { Logger } from '../log/logger.ts';
import type { HostLookup } from './address-rules.ts';
import { createEndpointCache, type EndpointCache, type EndpointCacheOptions } from './endpoint-cache.ts';
import type { WebhookDeps } from './deps.ts';
import { register, type RegisterOptions, type RegisteredEndpoint } from './register.ts';
import { update, disable, enable, type EndpointPatch } from './update.ts';
import { remove } from './remove.ts';
import { list, show, status, type EndpointDetails, type EndpointStatus, type ListOptions } from './read.ts';
import { rotate } from './secrets.ts';
import { emit, sendToEndpoint, type EmitOptions } from './emit.ts';
import type { Delivery } from './enqueue.ts';
import type { Endpoint } from './endpoint-store.ts';
import { verify } from './signing.ts';

export { register, update, disable, enable, remove, list, show, status, rotate, emit, sendToEndpoint, verify, createEndpointCache };
export { ensureWebhookTables } from './install.ts';
export { ensureWebhookTablesAtBoot, warnIfSecretsUnencrypted, UNENCRYPTED_SECRETS_WARNING } from './boot.ts';
export { signingSecrets, revealSecrets } from './secrets.ts';
export { DELIVERY_TASK } from './delivery-job.ts';
export { ENDPOINTS_CHANGED_CHANNEL } from './endpoint-store.ts';
export type { RegisterOptions, RegisteredEndpoint, EndpointPatch, EndpointDetails, EndpointStatus, ListOptions, EmitOptions, Delivery, Endpoint, EndpointCache, WebhookDeps };
export type { DeliveryJobPayload } from './delivery-job.ts';

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
  list(options?: ListOptions): Promise<Endpoint[]>;
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
    register: (input) => register(bound, input),
    emit: (event, payload, emitOptions) => emit(bound, event, payload, emitOptions),
    rotate: (id, rotateOptions) => rotate(bound, id, rotateOptions),
    send: (id, event, payload) => sendToEndpoint(bound, id, event, payload),
    update: (id, patch) => update(bound, id, patch),
    disable: (id, disableOptions) => disable(bound, id, disableOptions),
    enable: (id) => enable(bound, id),
    remove: (id) => remove(bound, id),
    list: (listOptions) => list(bound, listOptions),
    show: (id, showOptions) => show(bound, id, showOptions),
    status: (listOptions) => status(bound, listOptions),
    cache,
    close: async () => {
      if (deps.cache === undefined) await cache.close();
    },
  };
}

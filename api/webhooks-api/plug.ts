/**
 * The webhook API's dependencies in the web process: one `WebhookDeps` (config, pool, logger
 * and this process's endpoint cache, which emit reads through), given to the controller
 * factories (mount.ts) and to GraphQL. Controllers never build their own.
 */
import type { Config } from '../../shared/config/index.ts';
import type { Sql } from '../../shared/db/connect.ts';
import type { Logger } from '../../shared/log/logger.ts';
import type { WebhookDeps } from '../../shared/webhooks/deps.ts';
import { createEndpointCache } from '../../shared/webhooks/endpoints/cache.ts';
import type { Module } from '../lifecycle.ts';
import type { EndpointStore } from '../../shared/webhooks/endpoint-stores/types.ts';

/**
 * Makes the web process's webhook dependencies (one endpoint cache, which GraphQL shares) and
 * the module that stops the cache's LISTEN at shutdown (before the pool ends). The endpoint store
 * (`webhooks.store`) is opened by the server and closed in the `stores` phase (api/lifecycle.ts
 * BOOT_ORDER).
 */
export function plugWebhooksApi(deps: {
  config: Config;
  sql: Sql;
  log: Logger;
  endpoints?: EndpointStore;
  metrics?: WebhookDeps['metrics'];
}): {
  webhooks: WebhookDeps;
  module: Module;
} {
  const cache = createEndpointCache(deps);
  return { webhooks: { ...deps, cache }, module: { name: 'webhooks-api', stop: () => cache.close() } };
}

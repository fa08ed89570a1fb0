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

/**
 * Makes the web process's webhook dependencies (one endpoint cache, which GraphQL shares) and
 * the module that stops the cache's LISTEN at shutdown (before the pool ends). `stores` are the
 * modules of the stores these dependencies read and write through, booted in the `stores` phase
 * (api/lifecycle.ts BOOT_ORDER): the endpoint store's, once this process opens one
 * (`webhooks.store`); none while endpoints live in the service's own database.
 */
export function plugWebhooksApi(deps: { config: Config; sql: Sql; log: Logger }): {
  webhooks: WebhookDeps;
  module: Module;
  stores: Module[];
} {
  const cache = createEndpointCache(deps);
  return { webhooks: { ...deps, cache }, module: { name: 'webhooks-api', stop: () => cache.close() }, stores: [] };
}

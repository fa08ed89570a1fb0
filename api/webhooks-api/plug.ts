/**
 * The webhook API's dependencies in the web process: one `WebhookDeps` (config, pool, logger
 * and this process's endpoint cache, which emit reads through) handed to the controllers as
 * `ctx.state.webhooks`. Controllers never build their own.
 */
import type { Context, Middleware } from 'koa';
import type { Config } from '../../shared/config/index.ts';
import type { Sql } from '../../shared/db/connect.ts';
import { internal } from '../../shared/errors/app-error.ts';
import type { Logger } from '../../shared/log/logger.ts';
import type { WebhookDeps } from '../../shared/webhooks/deps.ts';
import { createEndpointCache } from '../../shared/webhooks/endpoints/cache.ts';
import type { Module } from '../lifecycle.ts';
import type { Pipeline } from '../pipeline.ts';

declare module 'koa' {
  interface DefaultState {
    /** The webhook core's dependencies (api/webhooks-api/plug.ts). */
    webhooks?: WebhookDeps;
  }
}

/** Sets `ctx.state.webhooks`: the process's dependencies with the request's deadline. */
export function provideWebhooks(deps: WebhookDeps): Middleware {
  return async function provideWebhooks(ctx, next) {
    // the request's deadline goes with them: a write that would commit after a timeout rolls back
    ctx.state.webhooks = ctx.state.deadline ? { ...deps, deadline: ctx.state.deadline } : deps;
    await next();
  };
}

/**
 * Makes the web process's webhook dependencies (one endpoint cache, which GraphQL shares) and
 * mounts them in the `custom` slot; answers them with the module that stops the cache's LISTEN
 * at shutdown (before the pool ends).
 */
export function plugWebhooksApi(pipeline: Pick<Pipeline, 'use'>, deps: { config: Config; sql: Sql; log: Logger }): { webhooks: WebhookDeps; module: Module } {
  const cache = createEndpointCache(deps);
  const webhooks: WebhookDeps = { ...deps, cache };
  pipeline.use('custom', provideWebhooks(webhooks));
  return { webhooks, module: { name: 'webhooks-api', stop: () => cache.close() } };
}

/** The webhook dependencies of a request (500 when the web process did not mount them). */
export function webhooksOf(ctx: Context): WebhookDeps {
  const deps = ctx.state.webhooks;
  if (!deps) throw internal('the webhook API is not mounted (api/webhooks-api/plug.ts)');
  return deps;
}

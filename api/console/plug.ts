/**
 * Mounts the console: its pages in the `router` slot after the application's routes
 * and the account paths (an application route on one of its paths is the application's), and
 * its stylesheet and script in the `static` slot. Every page reads through `ctx.render` and the
 * service's GraphQL schema, and every form calls the core functions REST, GraphQL and the CLI
 * call (shared/webhooks, shared/accounts, shared/tokens).
 */
import { fileURLToPath } from 'node:url';
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { staticAssets } from '../middleware/static-assets.ts';
import type { Pipeline } from '../pipeline.ts';
import type { ConsoleDeps } from './context.ts';
import { CONSOLE_PATHS } from './paths.ts';
import { accountRoutes } from './routes/accounts.ts';
import { deadLetterRoutes } from './routes/dead-letters.ts';
import { deliveryRoutes } from './routes/deliveries.ts';
import { endpointActionRoutes } from './routes/endpoint-actions.ts';
import { endpointRoutes } from './routes/endpoints.ts';
import { eventTypeRoutes } from './routes/event-types.ts';
import { findRoutes } from './routes/find.ts';
import { overviewRoutes } from './routes/overview.ts';
import { portalRoutes } from './routes/portal.ts';

/** What the error middleware is handed so that a browser's problem on a console path is a page. */
export { consoleErrorPage } from './error-page.ts';

export const ASSETS_DIR = fileURLToPath(new URL('./assets/', import.meta.url));

/** The console's pages and forms over `deps` (nothing runs until a request comes). */
export function consoleRouter(deps: ConsoleDeps): Router {
  const router = new Router();
  for (const routes of [
    overviewRoutes,
    endpointRoutes,
    endpointActionRoutes,
    deliveryRoutes,
    deadLetterRoutes,
    findRoutes,
    eventTypeRoutes,
    accountRoutes,
    portalRoutes,
  ])
    routes(router, deps);
  return router;
}

export function plugConsole(pipeline: Pick<Pipeline, 'use'>, deps: ConsoleDeps): void {
  pipeline.use('static', staticAssets({ prefix: CONSOLE_PATHS.assets, dir: ASSETS_DIR }));
  pipeline.use('router', consoleRouter(deps).routes() as Middleware);
}

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
import { CLAIM_MARGIN_MS } from '../idempotency/plug.ts';
import { answerSeal } from '../idempotency/sealed-answer.ts';
import { staticAssets } from '../middleware/static-assets.ts';
import type { Pipeline } from '../pipeline.ts';
import type { ConsoleDeps } from './context.ts';
import { formOnce, type FormOnceOptions } from './form-once.ts';
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

/** How long a form's first answer is answered again when `api.idempotency` is off (its `ttl` otherwise). */
const FORM_TTL_MS = 24 * 60 * 60 * 1000;

/** How long a form sent again waits for its first submission, still running, to answer. */
export const FORM_WAIT_MS = 5000;

/** Where form-once.ts keeps a form's first answer: the API's idempotency records, in the shared store. */
const formOnceOptions = (deps: ConsoleDeps): FormOnceOptions => {
  const idempotency = deps.config.api.idempotency;
  return {
    entries: deps.shared.entries,
    ttlMs: idempotency === false ? FORM_TTL_MS : idempotency.ttl,
    claimMs: deps.config.requestTimeout + CLAIM_MARGIN_MS,
    waitMs: FORM_WAIT_MS,
    seal: answerSeal(deps.config), // a redirect may set a one-time value's cookie
    logFailure: deps.shared.logFailure,
    sessionCookie: deps.pages.cookies.session,
  };
};

/** The console's pages and forms over `deps` (nothing runs until a request comes). */
export function consoleRouter(deps: ConsoleDeps): Router {
  const router = new Router();
  // before every route: a form acts once per rendered form (form-once.ts); runs for matched routes only
  let options: FormOnceOptions | undefined;
  router.use(formOnce(() => (options ??= formOnceOptions(deps))));
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

/**
 * The web process's middleware order as data (docs/models.md, "Middleware order"). Every step is a
 * named slot; the server mounts the slots in this order once, and each slot runs whatever has been
 * plugged into it at request time, so each feature (authentication, limiters, idempotency, static
 * files) plugs into its slot without reordering anything.
 *
 * Koa composes as an onion: a middleware's code after `await next()` runs on the way out. So the
 * last two steps of an Express-style order, "404, error handler", are middleware that act after
 * `next()`: the error handler sits right under the request id and wraps everything; the 404 step
 * wraps the router.
 */
import type { Middleware } from 'koa';
import type { CompiledRoute } from './model-framework/routing/table.ts';

/** Application slots, outermost first. */
export const APP_SLOTS = [
  'requestId', // X-Request-Id, log context (the first step)
  'errors', // the error handler: renders problem+json (last step in Express; wraps all below)
  'timeout', // 503 after config.requestTimeout
  'secureHeaders', // helmet + Permissions-Policy
  'compression', // production only
  'jsonAnswers', // weak ETag / 304, Cache-Control: no-store when authenticated
  'cors',
  'bodyParsers', // JSON + forms, config.bodyLimit
  'cookies', // Koa's ctx.cookies is built in; signed-cookie keys or a cookie parser plug in here
  'errorHelpers', // ctx.boom (Express-style res.boom)
  'apiVersion', // ctx.state.apiVersion from Accept
  'pagination', // ctx.pagination()
  'health', // /livez /readyz /healthz /_app/health
  'static', // static files (none yet)
  'user', // user module: session, passport, CSRF; sets ctx.state.principal
  'authLimiter', // authentication limiter
  'globalLimiter', // global limiter
  'custom', // addMiddleware()
  'notFound', // 404 / 405 for what the router did not answer (acts after next)
  'graphql', // the GraphQL path (config.graphql.path), where a route would be
  'router', // the application routes, each running ROUTE_SLOTS then its action
] as const;

export type AppSlot = (typeof APP_SLOTS)[number];

/** Per-route slots, in order; the route's action runs after the last one. */
export const ROUTE_SLOTS = ['versionGuard', 'routeLimiter', 'roleGuard', 'idempotency', 'halGuard'] as const;

export type RouteSlot = (typeof ROUTE_SLOTS)[number];

/** Makes a route's middleware for a slot from the route's declaration (`rateLimit`, `idempotent`, `roles`…); undefined: nothing for this route. */
export type RouteMiddlewareFactory = (route: CompiledRoute) => Middleware | undefined;

/** Runs `list` as one middleware, then `next` (a slot of one middleware, the usual case, calls it with `next` itself). */
export function run(
  list: readonly Middleware[],
  ctx: Parameters<Middleware>[0],
  next: () => Promise<unknown>,
): Promise<unknown> {
  if (list.length === 1) return Promise.resolve(list[0](ctx, next));
  const dispatch = (index: number): Promise<unknown> =>
    index < list.length ? Promise.resolve(list[index](ctx, () => dispatch(index + 1))) : next();
  return dispatch(0);
}

export interface Pipeline {
  /** Adds a middleware at the end of an application slot. */
  use(slot: AppSlot, middleware: Middleware | undefined): void;
  /** Adds a per-route middleware factory at the end of a route slot. */
  useRoute(slot: RouteSlot, factory: RouteMiddlewareFactory): void;
  /** One middleware per application slot, in order, for `app.use`. */
  slots(): Middleware[];
  /** The route slots of one route as one middleware (factories applied once per route, again after a new plug). */
  routeStage(route: CompiledRoute): Middleware;
}

export function createPipeline(): Pipeline {
  const app = new Map<AppSlot, Middleware[]>(APP_SLOTS.map((slot) => [slot, []]));
  const routeFactories = new Map<RouteSlot, RouteMiddlewareFactory[]>(ROUTE_SLOTS.map((slot) => [slot, []]));
  let generation = 0;

  const slotMiddleware = (slot: AppSlot): Middleware => {
    const list = app.get(slot) as Middleware[];
    const named = {
      [slot]: (ctx: Parameters<Middleware>[0], next: () => Promise<unknown>) =>
        list.length === 0 ? next() : run(list, ctx, next),
    };
    return named[slot] as Middleware;
  };

  return {
    use(slot, middleware) {
      if (!app.has(slot)) throw new Error(`unknown middleware slot "${slot}"; slots: ${APP_SLOTS.join(', ')}`);
      if (middleware) app.get(slot)?.push(middleware);
    },
    useRoute(slot, factory) {
      if (!routeFactories.has(slot)) throw new Error(`unknown route slot "${slot}"; slots: ${ROUTE_SLOTS.join(', ')}`);
      routeFactories.get(slot)?.push(factory);
      generation += 1;
    },
    slots: () => APP_SLOTS.map(slotMiddleware),
    routeStage(route) {
      let built = -1;
      let list: Middleware[] = [];
      return function routeSlots(ctx, next) {
        if (built !== generation) {
          list = ROUTE_SLOTS.flatMap((slot) =>
            (routeFactories.get(slot) ?? []).map((factory) => factory(route)).filter((m): m is Middleware => !!m),
          );
          built = generation;
        }
        return run(list, ctx, next);
      };
    },
  };
}

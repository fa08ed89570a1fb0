import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Model } from '../data/model.ts';
import type { PresentDeps } from '../../hal/present.ts';
import { controllerHelpers } from './controller-helpers.ts';
import type { Action } from './controller.ts';
import type { CompiledRoute } from './table.ts';

export interface MountedRoute {
  route: CompiledRoute;
  model: Model | undefined;
  action: Action;
}

/**
 * The `@koa/router` of the application: per route, the controller helpers, the route slots
 * (version guard, route limiter, role guard, idempotency, HAL guard; see api/pipeline.ts) and
 * the action. A path that exists with another method is left at 405 with `Allow` for the 404
 * step to render.
 */
export function buildRouter(options: {
  mounted: readonly MountedRoute[];
  present: PresentDeps;
  routeStage: (route: CompiledRoute) => Middleware;
}): Middleware {
  const router = new Router();
  for (const { route, model, action } of options.mounted) {
    const run: Middleware = async function action_(ctx) {
      await action(ctx as Parameters<Action>[0]);
    };
    Object.defineProperty(run, 'name', { value: `${route.controller}.${route.action}` });
    router.register(
      route.path,
      [route.method],
      [controllerHelpers({ route, model, present: options.present }), options.routeStage(route), run],
      {
        name: `${route.key} ${route.action}`,
      },
    );
  }
  const routes = router.routes() as unknown as Middleware;
  const allowed = router.allowedMethods() as unknown as Middleware;
  return async function router_(ctx, next) {
    await routes(ctx, () => allowed(ctx, next));
  };
}

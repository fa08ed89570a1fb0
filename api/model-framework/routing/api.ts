import type { Middleware } from 'koa';
import type { Sql } from '../../../shared/db/connect.ts';
import type { Models } from '../data/model.ts';
import { modelsFrom } from '../data/registry.ts';
import type { ModelEvents } from '../data/model.ts';
import type { PresentDeps } from '../../hal/present.ts';
import type { ModelDeclaration } from '../data/types.ts';
import type { Action, Controller } from './controller.ts';
import { genericController } from './generic-controller.ts';
import { buildRouter, type MountedRoute } from './router.ts';
import { compileRoutes, RouteTableError, type CompiledRoute, type RouteMap, type RouteTable } from './table.ts';

/** What an application declares: models, the route table, hand-written controllers by name. */
export interface ApiDefinition {
  models?: readonly ModelDeclaration[];
  routes?: RouteTable;
  controllers?: Readonly<Record<string, Controller>>;
}

/** The application API, built once at boot. */
export interface Api {
  models: Models;
  routeMap: RouteMap;
  mounted: readonly MountedRoute[];
  /** The router middleware (the `router` slot). */
  router: Middleware;
}

/**
 * Builds the models, compiles the route table and picks each route's action: the hand-written
 * controller's, else the generic controller's of the route's model. Every problem (unknown
 * model, missing controller or action) is listed at once and stops the boot.
 */
export function buildApi(
  deps: { sql: Sql; maxPageOffset: number; events?: ModelEvents & { bind(present: PresentDeps): void } },
  definition: ApiDefinition,
  routeStage: (route: CompiledRoute) => Middleware,
): Api {
  const models = modelsFrom(deps, definition.models ?? []);
  const routeMap = compileRoutes(definition.routes ?? {});
  const controllers = definition.controllers ?? {};
  const generic = new Map<string, Controller>();
  const problems: string[] = [];
  const mounted: MountedRoute[] = [];
  for (const route of routeMap.routes) {
    const model =
      route.kind === 'single'
        ? route.model
          ? models.get(route.model)
          : undefined
        : route.model
          ? models.get(route.model)
          : models.byCollection(route.name);
    if (route.model && !model) problems.push(`${route.key}: model "${route.model}" is not declared`);
    const written = controllers[route.controller];
    let action: Action | undefined = written?.[route.action];
    if (!action && model && route.kind !== 'single') {
      if (!generic.has(model.name)) generic.set(model.name, genericController(model));
      action = generic.get(model.name)?.[route.action];
    }
    if (typeof action !== 'function') {
      if (route.kind === 'single')
        problems.push(`${route.key}: controller "${route.controller}" has no action "${route.action}"`);
      else if (!route.model || model)
        problems.push(
          `${route.key}: no controller "${route.controller}" with "${route.action}" and no model for "${route.name}"`,
        );
      continue;
    }
    mounted.push({ route, model, action: action as Action });
  }
  if (problems.length > 0) throw new RouteTableError([...new Set(problems)]);
  const present = { models, resources: routeMap.resources, maxPageOffset: deps.maxPageOffset };
  deps.events?.bind(present);
  return { models, routeMap, mounted, router: buildRouter({ mounted, present, routeStage }) };
}

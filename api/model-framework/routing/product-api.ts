/**
 * The product's own APIs (webhooks, tokens) are mounted by the server beside what the
 * application declares, never discovered among its controllers. A route key or controller name of
 * the application that is the product's stops the boot: it would hide the product's API.
 */
import type { Controller } from './controller.ts';
import type { ApiDefinition } from './api.ts';
import { RouteTableError, type RouteTable } from './table.ts';

/** `definition` with `routes` and `controllers` added; `what` names the product API in the refusal. */
export function withProductApi(
  definition: ApiDefinition,
  what: string,
  routes: RouteTable,
  controllers: Record<string, Controller>,
): ApiDefinition {
  const clashes = [
    ...Object.keys(definition.routes ?? {})
      .filter((key) => key in routes)
      .map((key) => `route "${key}" is the ${what}'s own`),
    ...Object.keys(definition.controllers ?? {})
      .filter((name) => name in controllers)
      .map((name) => `controller "${name}" is the ${what}'s own`),
  ];
  if (clashes.length > 0) throw new RouteTableError(clashes);
  return {
    ...definition,
    routes: { ...routes, ...definition.routes },
    controllers: { ...controllers, ...definition.controllers },
  };
}

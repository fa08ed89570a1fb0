/**
 * A routed model's `roles` outside its routes: GraphQL resolvers ask here (`context.authorize`,
 * `context.visible`) so a caller the REST routes refuse is refused there too, with the same
 * refusal (`assertRoles`). A model served by several resources/crud declarations allows what one
 * of them allows (REST lets the caller do it through that one); a model no declaration serves
 * has no roles, and its policy alone decides.
 */
import { assertRoles, decide, type Guarded, type Principal } from './roles.ts';
import { operationOf, resourcesServing, type ResourceRoutes } from './table.ts';

/** Enforces the roles the routes of `model` declare for `action`: 401 or 403 as the role guard answers. */
export function assertModelRoles(
  model: { name: string; collection: string },
  resources: ReadonlyMap<string, ResourceRoutes>,
  action: string,
  principal: Principal | undefined,
): void {
  const guards: Guarded[] = resourcesServing(model, resources).map((resource) => ({
    roles: resource.roles,
    action,
    name: resource.name,
    operation: operationOf(resource.operation, action),
  }));
  if (guards.length === 0 || guards.some((guard) => decide(guard.roles, action, principal) === 'allow')) return;
  assertRoles(guards[0], principal);
}

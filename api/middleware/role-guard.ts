import type { Middleware } from 'koa';
import { assertRoles } from '../model-framework/routing/roles.ts';
import type { CompiledRoute } from '../model-framework/routing/table.ts';

/**
 * The route's `roles` against `ctx.state.principal`, refused as api/model-framework/routing/roles.ts
 * `assertRoles` says (401 `APP_UNAUTHENTICATED`, 403 `APP_FORBIDDEN`); GraphQL's
 * `context.authorize` applies the same rule to a routed model's actions.
 */
export function roleGuard(route: CompiledRoute): Middleware | undefined {
  if (route.roles === undefined) return undefined;
  return async function roleGuard(ctx, next) {
    assertRoles(route, ctx.state.principal);
    await next();
  };
}

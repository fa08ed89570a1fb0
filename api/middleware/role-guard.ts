import type { Middleware } from 'koa';
import { actorOf, authorize } from '../../shared/access/actor.ts';
import { forbidden, unauthorized } from '../../shared/errors/app-error.ts';
import { decide } from '../model-framework/routing/roles.ts';
import type { CompiledRoute } from '../model-framework/routing/table.ts';

/**
 * The route's `roles` against `ctx.state.principal`: no principal where one is needed is 401
 * `APP_UNAUTHENTICATED`; a principal without a needed role is 403 `APP_FORBIDDEN`. A route that
 * names the operation it runs (the product's own APIs) refuses as the core does, whatever the
 * face: `authorize`'s message and `data: {operation, role}`; any other route says `{action, role}`.
 */
export function roleGuard(route: CompiledRoute): Middleware | undefined {
  if (route.roles === undefined) return undefined;
  return async function roleGuard(ctx, next) {
    const decision = decide(route.roles, route.action, ctx.state.principal);
    if (decision === 'unauthenticated')
      throw unauthorized('this route needs an authenticated caller', { code: 'APP_UNAUTHENTICATED' });
    if (decision === 'forbidden') {
      // the roles come from the same table, so the core refuses too; its refusal is the answer
      if (route.operation !== undefined) authorize(actorOf(ctx.state.principal), route.operation);
      throw forbidden(`the caller's roles do not allow ${route.action} on ${route.name}`, {
        code: 'APP_FORBIDDEN',
        data: { action: route.action, role: ctx.state.principal?.roles?.[0] ?? null },
      });
    }
    await next();
  };
}

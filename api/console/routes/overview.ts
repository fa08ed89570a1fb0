/** The overview (`/`): every endpoint in reach with its health, and the queue. */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { listTenants } from '../../../shared/accounts/tenants.ts';
import { isAdmin, doneNotice, pageParam, param, pickedOwner, principalOf, signedIn, type ConsoleDeps } from '../context.ts';
import { consoleCreateLink } from '../links.ts';
import { CONSOLE_PATHS } from '../paths.ts';
import { OVERVIEW } from '../queries.ts';

/** The owners an admin may pick from (a datalist of the tenant filters); none for others. */
export const tenantChoices = async (ctx: Context, deps: ConsoleDeps): Promise<string[]> =>
  (isAdmin(ctx) ? (await listTenants(deps.webhooks)).map((tenant) => tenant.owner) : []);

export function overviewRoutes(router: Router, deps: ConsoleDeps): void {
  router.get(CONSOLE_PATHS.overview, signedIn, async (ctx) => {
    const principal = principalOf(ctx);
    await ctx.render('console/overview', { owner: param(ctx, 'owner') ?? '', tenants: await tenantChoices(ctx, deps), admin: isAdmin(ctx) }, {
      graphql: { query: OVERVIEW, variables: { ...pickedOwner(ctx), page: pageParam(ctx) } },
      links: { ...consoleCreateLink(principal, 'register', CONSOLE_PATHS.endpoints), ...consoleCreateLink(principal, 'emit', CONSOLE_PATHS.events) },
      notice: doneNotice(ctx),
    });
  });
}

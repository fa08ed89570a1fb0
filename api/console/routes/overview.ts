/** The overview (`/`): every endpoint in reach with its health, and the queue. */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { firstOwners, MAX_TENANTS } from '../../../shared/accounts/tenants.ts';
import {
  actorFor,
  allTenants,
  doneNotice,
  may,
  param,
  pickedOwner,
  principalOf,
  signedIn,
  windowParam,
  type ConsoleDeps,
} from '../context.ts';
import { pageChecked, pageParam } from '../paging.ts';
import { consoleCreateLink } from '../links.ts';
import { CONSOLE_PATHS } from '../paths.ts';
import { OVERVIEW } from '../queries.ts';

/** The owners an admin may pick from (a datalist of the tenant filters: the first {@link MAX_TENANTS}); none for others. */
export const tenantChoices = async (ctx: Context, deps: ConsoleDeps): Promise<string[]> =>
  may(ctx, 'tenants.read') ? await firstOwners(deps.webhooks, actorFor(ctx), MAX_TENANTS) : [];

export function overviewRoutes(router: Router, deps: ConsoleDeps): void {
  router.get(CONSOLE_PATHS.overview, signedIn, pageChecked, async (ctx) => {
    const principal = principalOf(ctx);
    const window = windowParam(ctx);
    await ctx.render(
      'console/overview',
      { owner: param(ctx, 'owner') ?? '', tenants: await tenantChoices(ctx, deps), admin: allTenants(ctx), window },
      {
        graphql: {
          query: OVERVIEW,
          variables: { ...pickedOwner(ctx), page: pageParam(ctx), window: window.toUpperCase() },
        },
        links: {
          ...consoleCreateLink(principal, 'register', CONSOLE_PATHS.endpoints, 'endpoints.register'),
          ...consoleCreateLink(principal, 'emit', CONSOLE_PATHS.events, 'events.emit'),
        },
        notice: doneNotice(ctx),
      },
    );
  });
}

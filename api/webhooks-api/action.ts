/**
 * The opening every webhook API action shares, written once: the caller's principal, its actor
 * and tenant scope, the core's dependencies with the request's deadline (a write that would commit after
 * the request timed out rolls back), the query, the record id of the path, and the paged
 * listing answer (page window, collection, paging links).
 */
import type { Context } from 'koa';
import { actorOf, type Actor } from '../../shared/access/actor.ts';
import type { Principal } from '../../shared/tokens/principal.ts';
import type { WebhookDeps } from '../../shared/webhooks/deps.ts';
import type { TenantScope } from '../../shared/access/tenant-scope.ts';
import type { Links } from '../hal/links.ts';
import type { Action } from '../model-framework/routing/controller.ts';
import { pagingLinks } from './links.ts';
import type { Query } from './query.ts';

/** What an action of the webhook API is given. */
export interface WebhookRequest {
  ctx: Context & { params: Record<string, string> };
  principal: Principal | undefined;
  /** The caller as the core sees it: writes take it and decide by its role. */
  actor: Actor;
  /** The actor's tenant scope, for reads. */
  scope: TenantScope;
  /** The core's dependencies for this request. */
  deps: WebhookDeps;
  query: Query;
  /** The `:externalId` of the path (an endpoint, event or delivery id). */
  id: string;
}

/** An action over the webhook core: `handler` receives the request's opening. */
export function webhookAction(deps: WebhookDeps, handler: (request: WebhookRequest) => Promise<void>): Action {
  return (ctx) => {
    const principal = ctx.state.principal;
    const actor = actorOf(principal);
    return handler({
      ctx,
      principal,
      actor,
      scope: actor.scope,
      deps: ctx.state.deadline ? { ...deps, deadline: ctx.state.deadline } : deps,
      query: ctx.query as Query,
      id: ctx.params.externalId,
    });
  };
}

/**
 * A paged listing: reads the page window, fetches one page of records with the total, and
 * answers the collection (embedded as `type`) with its paging links under `path` and `links`.
 */
export async function answerPage<T>(
  request: WebhookRequest,
  options: {
    path: string;
    /** The listing's filters, repeated by its paging links (links.ts LISTING_FILTERS). */
    filters: readonly string[];
    type?: string;
    fetch: (window: {
      page: number;
      perPage: number;
    }) => Promise<{ records: T[]; total: number; totalEstimated?: boolean }>;
    present: (record: T) => object;
    links?: Links;
  },
): Promise<void> {
  const { ctx, query } = request;
  const { page, perPage } = ctx.pagination();
  const { records, total, totalEstimated } = await options.fetch({ page, perPage });
  await ctx.collection(records.map(options.present), {
    ...(options.type === undefined ? {} : { type: options.type }),
    page,
    perPage,
    total,
    ...(totalEstimated === undefined ? {} : { totalEstimated }),
    links: { ...pagingLinks(options.path, query, { page, perPage, total }, options.filters), ...options.links },
  });
}

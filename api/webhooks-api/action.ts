/**
 * The opening every webhook API action shares, written once: the caller's principal, its actor,
 * the core's dependencies, the query, the record id of the path, and the paged
 * listing answer (page window, collection, paging links). Each action declares the query
 * parameters it reads, beside the code that reads them; any other is refused before it runs
 * (api/model-framework/routing/query-parameters.ts), and so is a write's `If-Match` that cannot
 * hold (api/http/preconditions.ts).
 */
import type { Context } from 'koa';
import { actorOf, type Actor } from '../../shared/access/actor.ts';
import type { Principal } from '../../shared/tokens/principal.ts';
import type { WebhookDeps } from '../../shared/webhooks/deps.ts';
import type { Links } from '../hal/links.ts';
import type { Action } from '../model-framework/routing/controller.ts';
import { acceptsQuery, type AcceptedQuery, type Query } from '../model-framework/routing/query-parameters.ts';
import { assertIfMatch } from '../http/preconditions.ts';
import { pagingLinks } from './links.ts';
import { deepestPage } from '../../shared/db/page-depth.ts';

/** What an action of the webhook API is given; `P`, the query parameters it declared. */
export interface WebhookRequest<P extends string = never> {
  ctx: Context & { params: Record<string, string> };
  principal: Principal | undefined;
  /** The caller as the core sees it: reads and writes take it, decide by its role and narrow by its tenant scope. */
  actor: Actor;
  /** The core's dependencies for this request. */
  deps: WebhookDeps;
  /** The declared parameters of the query (no other reaches the action). */
  query: Query<P>;
  /** What the action declared: its paging links repeat `parameters`. */
  accepted: AcceptedQuery<P>;
  /** The `:externalId` of the path (an endpoint, event or delivery id). */
  id: string;
}

const NO_QUERY: AcceptedQuery<never> = { parameters: [], paged: false };

/** A handler of any declared parameters, as the implementation below receives it. */
type Handler = (request: never) => Promise<void>;

/**
 * An action over the webhook core: `handler` receives the request's opening. Without `accepted`
 * it takes no query parameter; with it, those it names (and `page`, `per_page` when `paged`).
 */
export function webhookAction(deps: WebhookDeps, handler: (request: WebhookRequest) => Promise<void>): Action;
export function webhookAction<const P extends string>(
  deps: WebhookDeps,
  accepted: AcceptedQuery<P>,
  handler: (request: WebhookRequest<P>) => Promise<void>,
): Action;
export function webhookAction(deps: WebhookDeps, ...args: [Handler] | [AcceptedQuery<string>, Handler]): Action {
  const [accepted, handler] = args.length === 1 ? [NO_QUERY, args[0]] : args;
  return acceptsQuery(accepted, (ctx) => {
    assertIfMatch(ctx);
    const principal = ctx.state.principal;
    const actor = actorOf(principal);
    return (handler as (request: WebhookRequest<string>) => Promise<void>)({
      ctx,
      principal,
      actor,
      deps,
      query: ctx.query as Query<string>,
      accepted,
      id: ctx.params.externalId,
    });
  });
}

/**
 * A paged listing: reads the page window, fetches one page of records with the total, and
 * answers the collection (embedded as `type`) with its paging links under `path` and `links`.
 * The paging links repeat the action's declared parameters, so a link never carries one the
 * route refuses, and stop at the deepest page the listing answers (`api.maxPageOffset`).
 */
export async function answerPage<T, P extends string>(
  request: WebhookRequest<P>,
  options: {
    path: string;
    type?: string;
    fetch: (window: {
      page: number;
      perPage: number;
    }) => Promise<{ records: T[]; total: number; totalEstimated?: boolean }>;
    present: (record: T) => object;
    links?: Links;
  },
): Promise<void> {
  const { ctx, query, accepted } = request;
  const { page, perPage } = ctx.pagination();
  const { records, total, totalEstimated } = await options.fetch({ page, perPage });
  // every listing refuses pages past the paging bound (shared/db/page-depth.ts): its links stop at the deepest page
  const deepest = deepestPage(perPage, request.deps.config.api.maxPageOffset);
  await ctx.collection(records.map(options.present), {
    ...(options.type === undefined ? {} : { type: options.type }),
    page,
    perPage,
    total,
    ...(totalEstimated === undefined ? {} : { totalEstimated }),
    deepestPage: deepest,
    links: {
      ...pagingLinks(options.path, query, { page, perPage, total, deepest }, accepted.parameters),
      ...options.links,
    },
  });
}

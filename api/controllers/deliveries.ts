/**
 * `/deliveries` (issue 6): the operator's view of the queue over REST (list with filters, show
 * with every attempt, retry of a dead delivery), over the tenant-scoped core of
 * shared/webhooks/deliveries/.
 */
import { scopeOf } from '../../shared/tokens/principal.ts';
import { listDeliveries, retryDelivery, showDelivery } from '../../shared/webhooks/deliveries/index.ts';
import { defineController } from '../routing/controller.ts';
import { pagingLinks } from '../webhooks-api/links.ts';
import { webhooksOf } from '../webhooks-api/plug.ts';
import { publishDelivery } from '../webhooks-api/present.ts';
import { list, one, ownerParameter, timeParameters, type Query } from '../webhooks-api/query.ts';
import { PATHS } from '../webhooks-api/routes.ts';

export default defineController({
  /** GET /deliveries?status=&endpoint=&event=&type=&owner=&without_owner=&since=&until=: newest first. */
  async index(ctx) {
    const principal = ctx.state.principal;
    const query = ctx.query as Query;
    const { page, perPage } = ctx.pagination();
    const { records, total } = await listDeliveries(webhooksOf(ctx), scopeOf(principal), {
      statuses: list(query, 'status'),
      endpoint: one(query, 'endpoint'),
      event: one(query, 'event'),
      type: one(query, 'type'),
      owner: ownerParameter(query),
      ...timeParameters(query),
      page,
      perPage,
    });
    await ctx.collection(records.map((delivery) => publishDelivery(principal, delivery)), {
      type: 'deliveries',
      page,
      perPage,
      total,
      links: pagingLinks(PATHS.deliveries, query, { page, perPage, total }),
    });
  },

  /** GET /deliveries/:id: the delivery, its endpoint and every attempt (time, duration, status or error, answer excerpt). */
  async show(ctx) {
    const principal = ctx.state.principal;
    await ctx.resource(publishDelivery(principal, await showDelivery(webhooksOf(ctx), scopeOf(principal), ctx.params.externalId)));
  },

  /** POST /deliveries/:id/retry: 202; a dead delivery is sent again with the same webhook-id. */
  async retry(ctx) {
    const principal = ctx.state.principal;
    const summary = await retryDelivery(webhooksOf(ctx), scopeOf(principal), ctx.params.externalId);
    await ctx.resource(publishDelivery(principal, { ...summary, endpointEnabled: true }), { status: 202 });
  },
});

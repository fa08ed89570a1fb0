/**
 * `/events` (issue 6): emit over REST (`POST`, 202) and the retained events (list, show), over
 * the tenant-scoped core of shared/webhooks/events/.
 */
import { scopeOf } from '../../shared/tokens/principal.ts';
import { emitEvent, listEvents, showEvent } from '../../shared/webhooks/events/index.ts';
import type { Links } from '../hal/links.ts';
import { defineController } from '../routing/controller.ts';
import { createLink, eventLinks, pagingLinks } from '../webhooks-api/links.ts';
import { webhooksOf } from '../webhooks-api/plug.ts';
import { publishEvent } from '../webhooks-api/present.ts';
import { one, ownerParameter, timeParameters, type Query } from '../webhooks-api/query.ts';
import { PATHS } from '../webhooks-api/routes.ts';

export default defineController({
  /** GET /events?owner=&without_owner=&type=&since=&until=: a page of events, newest first. */
  async index(ctx) {
    const principal = ctx.state.principal;
    const query = ctx.query as Query;
    const { page, perPage } = ctx.pagination();
    const { records, total } = await listEvents(webhooksOf(ctx), scopeOf(principal), {
      owner: ownerParameter(query),
      type: one(query, 'type'),
      ...timeParameters(query),
      page,
      perPage,
    });
    await ctx.collection(records.map((event) => publishEvent(principal, event)), {
      type: 'events',
      page,
      perPage,
      total,
      links: { ...pagingLinks(PATHS.events, query, { page, perPage, total }), ...createLink(principal, PATHS.events) },
    });
  },

  /**
   * POST /events {type, data?, owner?}: emits to every subscribed endpoint of the owner; 202
   * with the event (null `externalId` when no endpoint matched: nothing is written then), the
   * number of deliveries and a `delivery` link to each.
   */
  async create(ctx) {
    const principal = ctx.state.principal;
    const input = ctx.permit('type', 'data', 'owner');
    const result = await emitEvent(webhooksOf(ctx), scopeOf(principal), input);
    const links: Links = result.event === null ? { collection: { href: PATHS.events } } : eventLinks(principal, result.event.id);
    links.delivery = result.deliveries.map((delivery) => ({ href: PATHS.delivery(delivery.id) }));
    await ctx.resource(
      {
        _links: links,
        externalId: result.event?.id ?? null,
        type: result.type,
        owner: result.owner,
        createdAt: result.event?.createdAt ?? null,
        deliveryCount: result.deliveries.length,
        deliveryIds: result.deliveries.map((delivery) => delivery.id),
      },
      { status: 202 },
    );
  },

  /** GET /events/:id: the event with its payload and delivery counts. */
  async show(ctx) {
    const principal = ctx.state.principal;
    await ctx.resource(publishEvent(principal, await showEvent(webhooksOf(ctx), scopeOf(principal), ctx.params.externalId)));
  },
});

/**
 * `crud webhooks` and its member actions (issue 6; routes in api/webhooks-api/routes.ts): thin
 * translation between HTTP and the tenant-scoped core of shared/webhooks/endpoints/. The
 * secret appears in the create and rotate answers only.
 */
import { scopeOf } from '../../shared/tokens/principal.ts';
import { listDeliveries, recoverDeliveries } from '../../shared/webhooks/deliveries/index.ts';
import {
  endpointInScope, listEndpoints, registerEndpoint, removeEndpoint, rotateSecret, sendTestEvent, showEndpoint, updateEndpoint,
} from '../../shared/webhooks/endpoints/index.ts';
import type { RegisterOptions } from '../../shared/webhooks/endpoints/register.ts';
import type { EndpointPatch } from '../../shared/webhooks/endpoints/update.ts';
import { defineController } from '../routing/controller.ts';
import { createLink, pagingLinks } from '../webhooks-api/links.ts';
import { webhooksOf } from '../webhooks-api/plug.ts';
import { publishDelivery, publishEndpoint, publishNewDelivery, revealHeadersFor } from '../webhooks-api/present.ts';
import { flag, list, one, ownerParameter, timeParameters, type Query } from '../webhooks-api/query.ts';
import { PATHS } from '../webhooks-api/routes.ts';

export default defineController({
  /** GET /webhooks?owner=&without_owner=&enabled=&events=: a page of endpoints. */
  async index(ctx) {
    const principal = ctx.state.principal;
    const query = ctx.query as Query;
    const { page, perPage } = ctx.pagination();
    const { records, total } = await listEndpoints(webhooksOf(ctx), scopeOf(principal), {
      owner: ownerParameter(query),
      enabled: flag(query, 'enabled'),
      events: list(query, 'events'),
      page,
      perPage,
    });
    await ctx.collection(records.map((endpoint) => publishEndpoint(principal, endpoint)), {
      page,
      perPage,
      total,
      links: { ...pagingLinks(PATHS.webhooks, query, { page, perPage, total }), ...createLink(principal, PATHS.webhooks) },
    });
  },

  /** POST /webhooks {url, events, owner?, description?, headers?}: 201 with the secret, shown this once. */
  async create(ctx) {
    const principal = ctx.state.principal;
    const input = ctx.permit('url', 'events', 'owner', 'description', 'headers') as unknown as RegisterOptions;
    const endpoint = await registerEndpoint(webhooksOf(ctx), scopeOf(principal), input);
    await ctx.resource({ ...publishEndpoint(principal, endpoint), secret: endpoint.secret }, { status: 201 });
  },

  /** GET /webhooks/:id: the endpoint and the dates of its signing secrets, never a secret. */
  async show(ctx) {
    const principal = ctx.state.principal;
    const revealHeaders = revealHeadersFor(principal, one(ctx.query, 'reveal') === 'headers');
    await ctx.resource(publishEndpoint(principal, await showEndpoint(webhooksOf(ctx), scopeOf(principal), ctx.params.externalId), { revealHeaders }));
  },

  /**
   * PATCH /webhooks/:id {url?, events?, description?, headers?, enabled?, disabledReason?, owner?}.
   * The body goes to the core whole (not through `permit`): an unknown field or an empty patch is
   * a 422 `APP_WEBHOOK_PATCH_INVALID`, as documented, not silently nothing.
   */
  async update(ctx) {
    const principal = ctx.state.principal;
    const patch = (ctx.request.body ?? {}) as EndpointPatch;
    await ctx.resource(publishEndpoint(principal, await updateEndpoint(webhooksOf(ctx), scopeOf(principal), ctx.params.externalId, patch)));
  },

  /** DELETE /webhooks/:id: 204; its secrets, deliveries and attempts go with it. */
  async destroy(ctx) {
    await removeEndpoint(webhooksOf(ctx), scopeOf(ctx.state.principal), ctx.params.externalId);
    ctx.status = 204;
  },

  /** POST /webhooks/:id/rotate {grace?}: the endpoint with its new secret (shown this once) and `graceEndsAt`. */
  async rotate(ctx) {
    const principal = ctx.state.principal;
    const deps = webhooksOf(ctx);
    const scope = scopeOf(principal);
    const { grace } = ctx.permit('grace') as { grace?: number };
    const rotated = await rotateSecret(deps, scope, ctx.params.externalId, { grace });
    const endpoint = await showEndpoint(deps, scope, ctx.params.externalId);
    await ctx.resource({ ...publishEndpoint(principal, endpoint), secret: rotated.secret, graceEndsAt: rotated.graceEndsAt });
  },

  /** POST /webhooks/:id/test {type?, data?}: 202 with the delivery of a `webhook.test` event to this endpoint alone. */
  async test(ctx) {
    const principal = ctx.state.principal;
    const input = ctx.permit('type', 'data') as { type?: string; data?: unknown };
    const delivery = await sendTestEvent(webhooksOf(ctx), scopeOf(principal), ctx.params.externalId, input);
    await ctx.resource(publishNewDelivery(principal, delivery), { status: 202 });
  },

  /** POST /webhooks/:id/recover {since, until?}: 202; the endpoint's dead deliveries in the range are sent again. */
  async recover(ctx) {
    const principal = ctx.state.principal;
    const range = ctx.permit('since', 'until');
    const result = await recoverDeliveries(webhooksOf(ctx), scopeOf(principal), ctx.params.externalId, range);
    await ctx.resource(
      {
        _links: {
          endpoint: { href: PATHS.webhook(result.endpointId) },
          deliveries: { href: PATHS.endpointDeliveries(result.endpointId) },
          delivery: result.deliveryIds.map((id) => ({ href: PATHS.delivery(id) })),
        },
        externalId: null,
        endpointId: result.endpointId,
        recovered: result.recovered,
        more: result.more,
        deliveryIds: result.deliveryIds,
      },
      { status: 202 },
    );
  },

  /** GET /webhooks/:id/deliveries?status=&type=&since=&until=: this endpoint's deliveries. */
  async deliveries(ctx) {
    const principal = ctx.state.principal;
    const deps = webhooksOf(ctx);
    const scope = scopeOf(principal);
    const endpointId = ctx.params.externalId;
    await endpointInScope(deps, scope, endpointId);
    const query = ctx.query as Query;
    const { page, perPage } = ctx.pagination();
    const { records, total } = await listDeliveries(deps, scope, {
      endpoint: endpointId,
      statuses: list(query, 'status'),
      type: one(query, 'type'),
      ...timeParameters(query),
      page,
      perPage,
    });
    const path = PATHS.endpointDeliveries(endpointId);
    await ctx.collection(records.map((delivery) => publishDelivery(principal, delivery)), {
      type: 'deliveries',
      page,
      perPage,
      total,
      links: { ...pagingLinks(path, query, { page, perPage, total }), endpoint: { href: PATHS.webhook(endpointId) } },
    });
  },
});

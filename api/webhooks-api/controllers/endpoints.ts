/**
 * `crud webhooks` and its member actions (routes in ../routes.ts): thin translation between
 * HTTP and shared/webhooks/endpoints/. The secret appears in the create and rotate answers only.
 */
import type { WebhookDeps } from '../../../shared/webhooks/deps.ts';
import { listDeliveries, recoverDeliveries } from '../../../shared/webhooks/deliveries/index.ts';
import {
  listEndpoints,
  maskedEndpoint,
  registerEndpoint,
  removeEndpoint,
  rotateSecret,
  sendTestEvent,
  showEndpoint,
  updateEndpoint,
  type EndpointPatch,
  type RegisterOptions,
} from '../../../shared/webhooks/endpoints/index.ts';
import { testFilter, type FilterTestInput } from '../../../shared/webhooks/filters/try.ts';
import { defineController } from '../../model-framework/routing/controller.ts';
import { bodyFields, permitOnly } from '../../model-framework/routing/permit.ts';
import { answerPage, webhookAction } from '../action.ts';
import { createLink } from '../links.ts';
import { publishDelivery, publishEndpoint, publishNewDelivery } from '../present.ts';
import { choice, flag, list, one, ownerParameter, timeParameters } from '../query.ts';
import { PATHS } from '../routes.ts';

export const endpointsController = (deps: WebhookDeps) =>
  defineController({
    /** GET /webhooks?owner=&without_owner=&enabled=&events=: a page of endpoints. */
    index: webhookAction(
      deps,
      { parameters: ['owner', 'without_owner', 'enabled', 'events'], paged: true },
      (request) =>
        answerPage(request, {
          path: PATHS.webhooks,
          fetch: (window) =>
            listEndpoints(request.deps, request.actor, {
              owner: ownerParameter(request.query),
              enabled: flag(request.query, 'enabled'),
              events: list(request.query, 'events'),
              ...window,
            }),
          present: (endpoint) => publishEndpoint(request.principal, endpoint),
          links: createLink(request.principal, PATHS.webhooks, 'endpoints.register'),
        }),
    ),

    /** POST /webhooks {url, events, filter?, owner?, description?, headers?}: 201 with the secret, shown this once. */
    create: webhookAction(deps, async ({ ctx, actor, principal, deps }) => {
      const input = permitOnly(ctx.request.body, [
        'url',
        'events',
        'filter',
        'owner',
        'description',
        'headers',
        'signing',
        'rateLimit',
        'ordering',
      ]) as unknown as RegisterOptions;
      const endpoint = await registerEndpoint(deps, actor, input);
      await ctx.resource(
        { ...publishEndpoint(principal, maskedEndpoint(endpoint)), secret: endpoint.secret },
        { status: 201 },
      );
    }),

    /** GET /webhooks/:id?reveal=headers: the endpoint and the dates of its signing secrets, never a secret. */
    show: webhookAction(
      deps,
      { parameters: ['reveal'], paged: false },
      async ({ ctx, principal, actor, deps, query, id }) => {
        const revealHeaders = choice(query, 'reveal', ['headers']) === 'headers';
        await ctx.resource(publishEndpoint(principal, await showEndpoint(deps, actor, id, { revealHeaders })));
      },
    ),

    /**
     * PATCH /webhooks/:id {url?, events?, filter?, description?, headers?, enabled?, disabledReason?, owner?}.
     * The body's fields go to the core whole (not through `permit`): an unknown field or an empty
     * patch is a 422 `APP_WEBHOOK_PATCH_INVALID`, as documented, not silently nothing.
     */
    update: webhookAction(deps, async ({ ctx, actor, principal, deps, id }) => {
      const patch = bodyFields(ctx.request.body) as EndpointPatch;
      await ctx.resource(publishEndpoint(principal, maskedEndpoint(await updateEndpoint(deps, actor, id, patch))));
    }),

    /** DELETE /webhooks/:id: 204; its secrets, deliveries and attempts go with it. */
    destroy: webhookAction(deps, async ({ ctx, actor, deps, id }) => {
      await removeEndpoint(deps, actor, id);
      ctx.status = 204;
    }),

    /** POST /webhooks/:id/rotate {grace?}: the endpoint with its new secret (shown this once) and `graceEndsAt`. */
    rotate: webhookAction(deps, async ({ ctx, actor, principal, deps, id }) => {
      const { grace } = permitOnly(ctx.request.body, ['grace']) as { grace?: number };
      const rotated = await rotateSecret(deps, actor, id, { grace });
      const endpoint = await showEndpoint(deps, actor, id);
      await ctx.resource({
        ...publishEndpoint(principal, endpoint),
        secret: rotated.secret,
        graceEndsAt: rotated.graceEndsAt,
      });
    }),

    /** POST /webhooks/:id/test {type?, data?}: 202 with the delivery of a `webhook.test` event to this endpoint alone. */
    test: webhookAction(deps, async ({ ctx, actor, principal, deps, id }) => {
      const input = permitOnly(ctx.request.body, ['type', 'data']) as { type?: string; data?: unknown };
      const delivery = await sendTestEvent(deps, actor, id, input);
      await ctx.resource(publishNewDelivery(principal, delivery), { status: 202 });
    }),

    /** POST /webhooks/:id/recover {since, until?}: 202; the endpoint's dead deliveries in the range are sent again. */
    recover: webhookAction(deps, async ({ ctx, actor, deps, id }) => {
      const result = await recoverDeliveries(deps, actor, id, permitOnly(ctx.request.body, ['since', 'until']));
      await ctx.resource(
        {
          _links: {
            endpoint: { href: PATHS.webhook(result.endpointId) },
            deliveries: { href: PATHS.endpointDeliveries(result.endpointId) },
            delivery: result.deliveryIds.map((deliveryId) => ({ href: PATHS.delivery(deliveryId) })),
          },
          endpointId: result.endpointId,
          recovered: result.recovered,
          more: result.more,
          deliveryIds: result.deliveryIds,
        },
        { status: 202 },
      );
    }),

    /**
     * POST /webhooks/filter-test {filter, event} or {filter, eventId}: whether the filter matches
     * the event, and for a miss the condition that failed first. The body goes to the core whole,
     * which refuses an unknown field.
     */
    filterTest: webhookAction(deps, async ({ ctx, actor, deps }) => {
      const result = await testFilter(deps, actor, bodyFields(ctx.request.body) as FilterTestInput);
      // an answer to a POST that no GET can fetch again: no `self`, the endpoints it is about
      // instead; and no `externalId`, as it is no record (the same fields as GraphQL and the CLI)
      await ctx.resource({
        _links: { collection: { href: PATHS.webhooks } },
        matches: result.matches,
        failed: result.failed,
      });
    }),

    /** GET /webhooks/:id/deliveries?status=&type=&since=&until=: this endpoint's deliveries (404 for an endpoint out of reach). */
    deliveries: webhookAction(
      deps,
      { parameters: ['status', 'type', 'since', 'until'], paged: true },
      async (request) => {
        const { actor, deps, query, id } = request;
        await showEndpoint(deps, actor, id);
        await answerPage(request, {
          path: PATHS.endpointDeliveries(id),
          type: 'deliveries',
          fetch: (window) =>
            listDeliveries(deps, actor, {
              endpoint: id,
              statuses: list(query, 'status'),
              type: one(query, 'type'),
              ...timeParameters(query),
              ...window,
            }),
          present: (delivery) => publishDelivery(request.principal, delivery),
          links: { endpoint: { href: PATHS.webhook(id) } },
        });
      },
    ),
  });

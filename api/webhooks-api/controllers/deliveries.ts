/**
 * `/deliveries`: the queue over REST (list with filters, show with every attempt, retry of a
 * dead delivery), over shared/webhooks/deliveries/.
 */
import type { WebhookDeps } from '../../../shared/webhooks/deps.ts';
import {
  listDeliveries,
  resendDelivery,
  retryDelivery,
  showDelivery,
} from '../../../shared/webhooks/deliveries/index.ts';
import { defineController } from '../../model-framework/routing/controller.ts';
import { permitOnly } from '../../model-framework/routing/permit.ts';
import { answerPage, webhookAction } from '../action.ts';
import { publishDelivery } from '../present.ts';
import { list, one, ownerParameter, timeParameters } from '../query.ts';
import { PATHS } from '../routes.ts';

export const deliveriesController = (deps: WebhookDeps) =>
  defineController({
    /** GET /deliveries?status=&endpoint=&event=&type=&owner=&without_owner=&since=&until=: newest first. */
    index: webhookAction(
      deps,
      {
        parameters: ['status', 'endpoint', 'event', 'type', 'owner', 'without_owner', 'since', 'until'],
        paged: true,
      },
      (request) =>
        answerPage(request, {
          path: PATHS.deliveries,
          type: 'deliveries',
          fetch: (window) =>
            listDeliveries(request.deps, request.actor, {
              statuses: list(request.query, 'status'),
              endpoint: one(request.query, 'endpoint'),
              event: one(request.query, 'event'),
              type: one(request.query, 'type'),
              owner: ownerParameter(request.query),
              ...timeParameters(request.query),
              ...window,
            }),
          present: (delivery) => publishDelivery(request.principal, delivery),
        }),
    ),

    /** GET /deliveries/:id: the delivery, its endpoint and every attempt (time, duration, status or error, answer excerpt). */
    show: webhookAction(deps, async ({ ctx, principal, actor, deps, id }) => {
      await ctx.resource(publishDelivery(principal, await showDelivery(deps, actor, id)));
    }),

    /** POST /deliveries/:id/retry: 202; a dead delivery is sent again with the same webhook-id. It takes no body field. */
    retry: webhookAction(deps, async ({ ctx, actor, principal, deps, id }) => {
      permitOnly(ctx.request.body, []);
      const summary = await retryDelivery(deps, actor, id);
      await ctx.resource(publishDelivery(principal, { ...summary, endpointEnabled: true }), { status: 202 });
    }),

    /** POST /deliveries/:id/resend: 202; a done or dead delivery is sent again with the same webhook-id (409 while in flight). */
    resend: webhookAction(deps, async ({ ctx, actor, principal, deps, id }) => {
      permitOnly(ctx.request.body, []);
      const summary = await resendDelivery(deps, actor, id);
      await ctx.resource(publishDelivery(principal, { ...summary, endpointEnabled: true }), { status: 202 });
    }),
  });

/**
 * `/events`: emit over REST (`POST`, 202) and the retained events (list, show), over
 * shared/webhooks/events/.
 */
import type { WebhookDeps } from '../../../shared/webhooks/deps.ts';
import { emitEvent, listEvents, showEvent } from '../../../shared/webhooks/events/index.ts';
import type { Links } from '../../hal/links.ts';
import { defineController } from '../../model-framework/routing/controller.ts';
import { permitOnly } from '../../model-framework/routing/permit.ts';
import { answerPage, webhookAction } from '../action.ts';
import { createLink, eventLinks } from '../links.ts';
import { publishEvent } from '../present.ts';
import { publicEmitted } from '../../../shared/webhooks/public-shapes.ts';
import { one, ownerParameter, timeParameters } from '../query.ts';
import { PATHS } from '../routes.ts';

export const eventsController = (deps: WebhookDeps) =>
  defineController({
    /** GET /events?owner=&without_owner=&type=&since=&until=: a page of events, newest first. */
    index: webhookAction(
      deps,
      { parameters: ['owner', 'without_owner', 'type', 'since', 'until'], paged: true },
      (request) =>
        answerPage(request, {
          path: PATHS.events,
          type: 'events',
          fetch: (window) =>
            listEvents(request.deps, request.actor, {
              owner: ownerParameter(request.query),
              type: one(request.query, 'type'),
              ...timeParameters(request.query),
              ...window,
            }),
          present: (event) => publishEvent(request.principal, event),
          links: createLink(request.principal, PATHS.events, 'events.emit'),
        }),
    ),

    /**
     * POST /events {type, data?, owner?, eventId?}: emits to every subscribed endpoint of the owner;
     * 202 with the event (null `externalId` when no endpoint subscribed: nothing is written then), the
     * number of deliveries, how many subscribed endpoints their filters left out, and a `delivery`
     * link to each. An `eventId` seen within
     * `webhooks.dedupeWindow` answers 200 with the original event (`duplicate: true`), queuing nothing.
     */
    create: webhookAction(deps, async ({ ctx, actor, principal, deps }) => {
      const result = await emitEvent(deps, actor, permitOnly(ctx.request.body, ['type', 'data', 'owner', 'eventId']));
      const links: Links =
        result.event === null ? { collection: { href: PATHS.events } } : eventLinks(principal, result.event.id);
      links.delivery = result.deliveries.map((delivery) => ({ href: PATHS.delivery(delivery.id) }));
      await ctx.resource({ _links: links, ...publicEmitted(result) }, { status: result.duplicate ? 200 : 202 });
    }),

    /** GET /events/:id: the event with its payload and delivery counts. */
    show: webhookAction(deps, async ({ ctx, principal, actor, deps, id }) => {
      await ctx.resource(publishEvent(principal, await showEvent(deps, actor, id)));
    }),
  });

/** `/event-types`: the event-type catalog over shared/webhooks/event-types/ (every role reads, admins change). */
import type { WebhookDeps } from '../../../shared/webhooks/deps.ts';
import {
  createEventType,
  listEventTypes,
  showEventType,
  updateEventType,
  type EventType,
} from '../../../shared/webhooks/event-types/index.ts';
import type { Links } from '../../hal/links.ts';
import { defineController } from '../../model-framework/routing/controller.ts';
import { bodyFields, permitOnly } from '../../model-framework/routing/permit.ts';
import type { Principal } from '../../model-framework/routing/roles.ts';
import { answerPage, webhookAction } from '../action.ts';
import { may } from '../links.ts';
import { flag } from '../query.ts';
import { PATHS } from '../routes.ts';

/** A catalog type with its links (`update` for admins). */
export function publishEventType(principal: Principal | undefined, type: EventType): object {
  const links: Links = { self: { href: PATHS.eventType(type.name) }, collection: { href: PATHS.eventTypes } };
  if (may(principal, 'eventTypes.update')) links.update = { href: PATHS.eventType(type.name), method: 'PATCH' };
  return { _links: links, ...type };
}

export const eventTypesController = (deps: WebhookDeps) =>
  defineController({
    /** GET /event-types?deprecated=false: the catalog in name order (deprecated types too unless `deprecated=false`). */
    index: webhookAction(deps, { parameters: ['deprecated'], paged: true }, (request) =>
      answerPage(request, {
        path: PATHS.eventTypes,
        type: 'eventTypes',
        fetch: (window) =>
          listEventTypes(request.deps, request.actor, {
            includeDeprecated: flag(request.query, 'deprecated') !== false,
            ...window,
          }),
        present: (type) => publishEventType(request.principal, type),
        links: may(request.principal, 'eventTypes.create')
          ? { create: { href: PATHS.eventTypes, method: 'POST' } }
          : {},
      }),
    ),
    /** POST /event-types {name, description?, schema?, examples?, deprecated?} (admins). */
    create: webhookAction(deps, async ({ ctx, actor, principal, deps }) => {
      const type = await createEventType(
        deps,
        actor,
        permitOnly(ctx.request.body, ['name', 'description', 'schema', 'examples', 'deprecated']),
      );
      await ctx.resource(publishEventType(principal, type), { status: 201 });
    }),
    show: webhookAction(deps, async ({ ctx, actor, principal, deps, id }) => {
      await ctx.resource(publishEventType(principal, await showEventType(deps, actor, id)));
    }),
    /** PATCH /event-types/:name {description?, schema?, examples?, deprecated?} (admins; `schema: null` removes it). */
    update: webhookAction(deps, async ({ ctx, actor, principal, deps, id }) => {
      await ctx.resource(
        publishEventType(principal, await updateEventType(deps, actor, id, bodyFields(ctx.request.body))),
      );
    }),
  });

/**
 * Find (`/find?q=`): a delivery id (`msg_…`, the `webhook-id` a receiver reports) opens its
 * page, an endpoint id (`ep_…`) its page; an event id (`evt_…`) shows the event with its payload
 * and every delivery of it; anything else is read as an event type (its recent events). And
 * the emit form (`/events/new`, `POST /events`), which sends an event as `events:emit` does.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { showDelivery } from '../../../shared/webhooks/deliveries/index.ts';
import { showEndpoint } from '../../../shared/webhooks/endpoints/index.ts';
import { emitEvent } from '../../../shared/webhooks/events/index.ts';
import { parseJsonData } from '../../../shared/webhooks/text-input.ts';
import type { PageError } from '../pages/page-object.ts';
import {
  field,
  formOf,
  allTenants,
  orShowAgain,
  pageFor,
  param,
  principalOf,
  actorFor,
  signedIn,
  wantsJson,
  type ConsoleDeps,
} from '../context.ts';
import { pageChecked, pageParam } from '../paging.ts';
import { echo } from '../forms.ts';
import { consoleCreateLink } from '../links.ts';
import { CONSOLE_PATHS, consolePath } from '../paths.ts';
import { FIND_EVENT, FIND_TYPE } from '../queries.ts';
import { tenantChoices } from './overview.ts';

const EMIT_FIELDS = ['type', 'data', 'owner', 'eventId'] as const;

/** The record an id Find was given opens, by its prefix: a delivery (`msg_`) or an endpoint (`ep_`). */
const recordOf = (q: string) =>
  q.startsWith('msg_')
    ? { show: showDelivery, path: consolePath.delivery }
    : q.startsWith('ep_')
      ? { show: showEndpoint, path: consolePath.endpoint }
      : undefined;

export function findRoutes(router: Router, deps: ConsoleDeps): void {
  router.get(CONSOLE_PATHS.find, signedIn, pageChecked, async (ctx) => {
    const q = param(ctx, 'q') ?? '';
    const opens = recordOf(q);
    if (opens && wantsJson(ctx)) return ctx.redirect(opens.path(q));
    // a browser is sent to the record only when it is there (in reach): an id that is not stays on
    // Find, with why and the id typed, to be corrected, rather than on a page of its error alone
    if (opens)
      return orShowAgain(
        ctx,
        async () => {
          await opens.show(deps.webhooks, actorFor(ctx), q);
          ctx.redirect(opens.path(q));
        },
        (errors, status) => ctx.render('console/find', { q, kind: 'none' }, { errors, status }),
      );
    const kind = q === '' ? 'none' : q.startsWith('evt_') ? 'event' : 'type';
    await ctx.render(
      'console/find',
      { q, kind },
      {
        ...(kind === 'event' ? { graphql: { query: FIND_EVENT, variables: { id: q } } } : {}),
        ...(kind === 'type' ? { graphql: { query: FIND_TYPE, variables: { type: q, page: pageParam(ctx) } } } : {}),
      },
    );
  });

  const showEmit = async (ctx: Context, form: Record<string, string>, errors?: PageError[], status?: number) =>
    ctx.render(
      'console/emit',
      { form, admin: allTenants(ctx), tenants: await tenantChoices(ctx, deps) },
      { errors, status, links: consoleCreateLink(principalOf(ctx), 'emit', CONSOLE_PATHS.events, 'events.emit') },
    );

  // a role that may not emit gets the refusal (the console's error page), not a form it can only be refused at
  router.get(CONSOLE_PATHS.emit, signedIn, (ctx) => {
    pageFor(ctx, 'events.emit');
    return showEmit(ctx, { ...echo({}, EMIT_FIELDS), data: '{}' });
  });

  router.post(CONSOLE_PATHS.events, signedIn, async (ctx) => {
    const form = formOf(ctx);
    await orShowAgain(
      ctx,
      async () => {
        const owner = allTenants(ctx) ? field(form, 'owner') : undefined;
        const eventId = field(form, 'eventId');
        const result = await emitEvent(deps.webhooks, actorFor(ctx), {
          type: field(form, 'type') ?? '',
          data: parseJsonData(field(form, 'data'), 'the data'),
          ...(owner ? { owner } : {}),
          ...(eventId ? { eventId } : {}),
        });
        if (result.event === null) {
          await showEmit(
            ctx,
            echo(form, EMIT_FIELDS),
            [
              {
                message: `no enabled endpoint ${result.owner === null ? 'without owner' : `of ${result.owner}`} subscribes to ${result.type}: nothing was sent`,
              },
            ],
            200,
          );
          return;
        }
        ctx.status = 303;
        ctx.redirect(`${CONSOLE_PATHS.find}?q=${encodeURIComponent(result.event.id)}`);
      },
      (errors, status) => showEmit(ctx, echo(form, EMIT_FIELDS), errors, status),
    );
  });
}

/**
 * An endpoint's actions that answer a page of their own: reveal its secrets (after a
 * confirmation), rotate (the new secret, shown once), send a test event, remove (after a
 * confirmation). The core decides each; the confirmation pages are refused to whoever the core
 * would refuse their action.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import {
  removeEndpoint,
  revealEndpoint,
  rotateSecret,
  sendTestEvent,
} from '../../../shared/webhooks/endpoints/index.ts';
import { parseGrace, parseJsonData } from '../../../shared/webhooks/text-input.ts';
import type { PageError } from '../pages/page-object.ts';
import {
  actorFor,
  field,
  formOf,
  orShowAgain,
  pageFor,
  principalOf,
  redirectDone,
  signedIn,
  type ConsoleDeps,
} from '../context.ts';
import { echo } from '../forms.ts';
import { endpointPageLinks } from '../links.ts';
import { CONSOLE_PATHS, consolePath } from '../paths.ts';
import { ENDPOINT_ONLY } from '../queries.ts';
import { showEndpointPage } from './endpoints.ts';
import { onceDeps, showOnce, takeOnce } from '../once.ts';

/** One of the endpoint's own pages (`page`), with the endpoint queried and `props`. */
const endpointPage = (
  ctx: Context,
  page: string,
  props: Record<string, unknown>,
  options: { status?: number; errors?: PageError[] } = {},
) =>
  ctx.render(page, props, {
    graphql: { query: ENDPOINT_ONLY, variables: { id: ctx.params.id } },
    links: (data) => endpointPageLinks(principalOf(ctx), data?.webhookEndpoint),
    ...options,
  });

export function endpointActionRoutes(router: Router, deps: ConsoleDeps): void {
  router.get('/endpoints/:id/secret', signedIn, async (ctx) => {
    pageFor(ctx, 'endpoints.reveal');
    await endpointPage(ctx, 'console/endpoint-secret', { secrets: null });
  });

  router.post('/endpoints/:id/secret', signedIn, async (ctx) => {
    const endpoint = await revealEndpoint(deps.webhooks, actorFor(ctx), ctx.params.id);
    deps.log.info(
      { endpoint: endpoint.id, by: principalOf(ctx).id },
      'signing secrets and header values revealed in the console',
    );
    await endpointPage(ctx, 'console/endpoint-secret', { secrets: endpoint.secrets, headers: endpoint.headers });
  });

  router.post('/endpoints/:id/rotate', signedIn, async (ctx) => {
    const form = formOf(ctx);
    await orShowAgain(
      ctx,
      async () => {
        const grace = parseGrace(field(form, 'grace') ?? '0', 'the grace period');
        const rotated = await rotateSecret(deps.webhooks, actorFor(ctx), ctx.params.id, { grace });
        await showOnce(ctx, deps.pages.cookies, `${consolePath.endpoint(ctx.params.id)}/rotated`, rotated, () =>
          endpointPage(ctx, 'console/endpoint-rotated', rotated),
        );
      },
      (errors, status) => showEndpointPage(ctx, deps, ctx.params.id, { errors, status }),
    );
  });

  // the new secret, once (once.ts); afterwards the endpoint's page
  router.get('/endpoints/:id/rotated', signedIn, async (ctx) => {
    const rotated = await takeOnce<Record<string, unknown>>(ctx, onceDeps(deps), ctx.path);
    if (!rotated || !('value' in rotated))
      return redirectDone(ctx, consolePath.endpoint(ctx.params.id), 'rotated-shown');
    await endpointPage(ctx, 'console/endpoint-rotated', rotated.value);
  });

  router.post('/endpoints/:id/test', signedIn, async (ctx) => {
    const form = formOf(ctx);
    await orShowAgain(
      ctx,
      async () => {
        const type = field(form, 'type');
        const data = parseJsonData(field(form, 'data'), 'the data');
        const delivery = await sendTestEvent(deps.webhooks, actorFor(ctx), ctx.params.id, {
          ...(type ? { type } : {}),
          data,
        });
        redirectDone(ctx, consolePath.delivery(delivery.id), 'tested');
      },
      (errors, status) =>
        showEndpointPage(ctx, deps, ctx.params.id, { errors, status, test: echo(form, ['type', 'data']) }),
    );
  });

  router.get('/endpoints/:id/remove', signedIn, async (ctx) => {
    pageFor(ctx, 'endpoints.remove');
    await endpointPage(ctx, 'console/endpoint-remove', {});
  });

  router.post('/endpoints/:id/remove', signedIn, async (ctx) => {
    await removeEndpoint(deps.webhooks, actorFor(ctx), ctx.params.id);
    redirectDone(ctx, CONSOLE_PATHS.overview, 'removed');
  });
}

/**
 * An endpoint's actions that answer a page of their own: reveal its secrets (after a
 * confirmation), rotate (the new secret, shown once), send a test event, remove (after a
 * confirmation). Revealing, like every change, is for members and admins.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { forbidden } from '../../../shared/errors/app-error.ts';
import { removeEndpoint, rotateSecret, sendTestEvent, showEndpoint } from '../../../shared/webhooks/endpoints/index.ts';
import { parseGrace, parseJsonData } from '../../../shared/webhooks/text-input.ts';
import type { PageError } from '../../pages/page-object.ts';
import { field, formOf, mayWrite, orShowAgain, principalOf, redirectDone, scopeFor, signedIn, type ConsoleDeps } from '../context.ts';
import { endpointPageLinks } from '../links.ts';
import { CONSOLE_PATHS, consolePath } from '../paths.ts';
import { ENDPOINT_ONLY } from '../queries.ts';
import { showEndpointPage } from './endpoints.ts';

/** 403 for viewers: these pages change the endpoint or show its credentials. */
function writersOnly(ctx: Context): void {
  if (!mayWrite(ctx)) throw forbidden('only members and admins may do this', { code: 'APP_FORBIDDEN', data: { reason: 'read-only role' } });
}

/** One of the endpoint's own pages (`page`), with the endpoint queried and `props`. */
const endpointPage = (ctx: Context, page: string, props: Record<string, unknown>, options: { status?: number; errors?: PageError[] } = {}) =>
  ctx.render(page, props, {
    graphql: { query: ENDPOINT_ONLY, variables: { id: ctx.params.id } },
    links: (data) => endpointPageLinks(principalOf(ctx), data?.webhookEndpoint),
    ...options,
  });

export function endpointActionRoutes(router: Router, deps: ConsoleDeps): void {
  router.get('/endpoints/:id/secret', signedIn, async (ctx) => {
    writersOnly(ctx);
    await endpointPage(ctx, 'console/endpoint-secret', { secrets: null });
  });

  router.post('/endpoints/:id/secret', signedIn, async (ctx) => {
    writersOnly(ctx);
    const endpoint = await showEndpoint(deps.webhooks, scopeFor(ctx), ctx.params.id, { reveal: true });
    deps.log.info({ endpoint: endpoint.id, by: principalOf(ctx).id }, 'signing secrets revealed in the console');
    await endpointPage(ctx, 'console/endpoint-secret', { secrets: endpoint.secrets });
  });

  router.post('/endpoints/:id/rotate', signedIn, async (ctx) => {
    const form = formOf(ctx);
    await orShowAgain(ctx, async () => {
      const grace = parseGrace(field(form, 'grace') ?? '0', 'the grace period');
      const rotated = await rotateSecret(deps.webhooks, scopeFor(ctx), ctx.params.id, { grace });
      await endpointPage(ctx, 'console/endpoint-rotated', rotated);
    }, (errors, status) => showEndpointPage(ctx, ctx.params.id, { errors, status }));
  });

  router.post('/endpoints/:id/test', signedIn, async (ctx) => {
    const form = formOf(ctx);
    await orShowAgain(ctx, async () => {
      const type = field(form, 'type');
      const data = parseJsonData(field(form, 'data'), 'the data');
      const delivery = await sendTestEvent(deps.webhooks, scopeFor(ctx), ctx.params.id, { ...(type ? { type } : {}), data });
      redirectDone(ctx, consolePath.delivery(delivery.id), 'tested');
    }, (errors, status) => showEndpointPage(ctx, ctx.params.id, { errors, status }));
  });

  router.get('/endpoints/:id/remove', signedIn, async (ctx) => {
    writersOnly(ctx);
    await endpointPage(ctx, 'console/endpoint-remove', {});
  });

  router.post('/endpoints/:id/remove', signedIn, async (ctx) => {
    await removeEndpoint(deps.webhooks, scopeFor(ctx), ctx.params.id);
    redirectDone(ctx, CONSOLE_PATHS.overview, 'removed');
  });
}

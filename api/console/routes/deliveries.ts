/** A delivery's page (its event's payload, every attempt as a timeline) and its retry and resend. */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { resendDelivery, retryDelivery } from '../../../shared/webhooks/deliveries/index.ts';
import {
  doneNotice,
  orShowAgain,
  principalOf,
  redirectDone,
  actorFor,
  signedIn,
  type ConsoleDeps,
} from '../context.ts';
import { deliveryPageLinks } from '../links.ts';
import { consolePath } from '../paths.ts';
import { DELIVERY } from '../queries.ts';

export function deliveryRoutes(router: Router, deps: ConsoleDeps): void {
  const show = (ctx: Context, extra: { errors?: { message: string; code?: string }[]; status?: number } = {}) =>
    ctx.render(
      'console/delivery',
      {},
      {
        graphql: { query: DELIVERY, variables: { id: ctx.params.id } },
        links: (data) => deliveryPageLinks(principalOf(ctx), data?.webhookDelivery),
        notice: doneNotice(ctx),
        ...extra,
      },
    );

  router.get('/deliveries/:id', signedIn, (ctx) => show(ctx));

  for (const [action, run] of [
    ['retry', retryDelivery],
    ['resend', resendDelivery],
  ] as const) {
    router.post(`/deliveries/:id/${action}`, signedIn, async (ctx) => {
      await orShowAgain(
        ctx,
        async () => {
          await run(deps.webhooks, actorFor(ctx), ctx.params.id);
          redirectDone(ctx, consolePath.delivery(ctx.params.id), action === 'retry' ? 'retried' : 'resent');
        },
        (errors, status) => show(ctx, { errors, status }),
      );
    });
  }
}

/**
 * Where a tenant portal link lands: `GET /portal?token=` shows a page with one button
 * (no sign-in happens on a GET, so a link previewer cannot spend the link and another site
 * cannot sign a browser in unasked); its `POST /portal` (the anonymous form's CSRF token) spends
 * the link and starts a portal session, then goes to the overview. A link signs in once.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { createCsrfToken } from '../../../shared/accounts/csrf.ts';
import { usePortalLink } from '../../../shared/accounts/portal-links.ts';
import { endSession } from '../../../shared/accounts/sessions.ts';
import { setSessionCookie } from '../../accounts/cookies.ts';
import { sessionOf } from '../../auth/session-strategy.ts';
import { field, formOf, orShowAgain, param, wantsJson, type ConsoleDeps } from '../context.ts';
import { CONSOLE_PATHS } from '../paths.ts';

export function portalRoutes(router: Router, deps: ConsoleDeps): void {
  const show = (
    ctx: Context,
    token: string,
    extra: { errors?: { message: string; code?: string }[]; status?: number } = {},
  ) => ctx.render('portal', { token }, { ...extra, user: null });

  router.get(CONSOLE_PATHS.portal, (ctx) => show(ctx, param(ctx, 'token') ?? ''));

  router.post(CONSOLE_PATHS.portal, async (ctx) => {
    const token = field(formOf(ctx), 'token') ?? '';
    await orShowAgain(
      ctx,
      async () => {
        const session = await usePortalLink(deps.accounts, token);
        const previous = sessionOf(ctx.state.principal);
        if (previous) await endSession(deps.accounts, previous.id);
        setSessionCookie(ctx, deps.pages.cookies, session.cookie, session.expiresAt);
        ctx.set('Cache-Control', 'no-store');
        if (wantsJson(ctx)) {
          ctx.body = {
            portal: session.portal,
            csrfToken: createCsrfToken(session.csrfSecret),
            _links: { overview: { href: CONSOLE_PATHS.overview } },
          };
          return;
        }
        ctx.status = 303;
        ctx.redirect(CONSOLE_PATHS.overview);
      },
      (errors, status) => show(ctx, '', { errors, status }),
    );
  });
}

/**
 * Where a tenant portal link lands: `GET /portal?token=` shows a page with one button
 * (no sign-in happens on a GET, so a link previewer cannot spend the link and another site
 * cannot sign a browser in unasked); its `POST /portal` (the anonymous form's CSRF token) spends
 * the link and starts a portal session, then goes to the overview. A link signs in once.
 *
 * A browser's GET with `?token=` is first sent (303) to `/portal` without it, the token kept in
 * the link cookie (api/accounts/link-landing.ts): the page and its form never carry the token,
 * and the POST takes it from the cookie. A JSON client GETs the page object as before and posts
 * the token in the `token` field, which is read first.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { createCsrfToken } from '../../../shared/accounts/csrf.ts';
import { portalLinkUsable, usePortalLink } from '../../../shared/accounts/portal-links.ts';
import { linkCookie, setLinkCookie, setSessionCookie } from '../../accounts/cookies.ts';
import { keepLinkToken } from '../../accounts/link-landing.ts';
import { sessionOf } from '../../auth/session-strategy.ts';
import { field, formOf, orShowAgain, param, wantsJson, type ConsoleDeps } from '../context.ts';
import { CONSOLE_PATHS } from '../paths.ts';

export function portalRoutes(router: Router, deps: ConsoleDeps): void {
  /**
   * `token`: only one the client gave itself (never the cookie's); `link`: whether there is one to
   * post; `usable`: whether that link would sign in now (else the page says it is spent or expired).
   */
  const show = async (ctx: Context, given: string | undefined) => {
    const token = given ?? linkCookie(ctx, deps.pages.cookies);
    const usable = token !== undefined && (await portalLinkUsable(deps.accounts, token));
    return ctx.render('portal', { token: given ?? '', link: token !== undefined, usable }, { user: null });
  };

  router.get(CONSOLE_PATHS.portal, (ctx) => {
    if (keepLinkToken(ctx, deps.pages.cookies, CONSOLE_PATHS.portal)) return;
    return show(ctx, param(ctx, 'token'));
  });

  router.post(CONSOLE_PATHS.portal, async (ctx) => {
    const given = field(formOf(ctx), 'token');
    const cookies = deps.pages.cookies;
    await orShowAgain(
      ctx,
      async () => {
        const session = await usePortalLink(deps.accounts, given ?? linkCookie(ctx, cookies) ?? '', {
          replacing: sessionOf(ctx.state.principal)?.id,
        });
        setLinkCookie(ctx, cookies, CONSOLE_PATHS.portal, null); // spent
        setSessionCookie(ctx, cookies, session.cookie, session.expiresAt);
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
      // a link refused is spent, expired or unknown: the page asks for a new one
      (errors, status) => {
        setLinkCookie(ctx, cookies, CONSOLE_PATHS.portal, null);
        return ctx.render('portal', { token: '', link: false, usable: false }, { errors, status, user: null });
      },
    );
  });
}

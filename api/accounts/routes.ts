/**
 * The account paths (docs/accounts-and-console.md "Accounts"): sign-in and sign-out, sign-up, password
 * change, forgotten and reset passwords. JSON clients send JSON and get JSON; browsers post
 * forms and are redirected (303) or shown the form again with the reason.
 *
 * | Path | GET | POST |
 * |---|---|---|
 * | `/login` | form / page object with `csrfToken`; a browser signed in with an account: to `next` | `{email, password}` → `200 {user, csrfToken}` + cookie; browsers 303 to `next` |
 * | `/logout` | — | ends the session; 204 / 303 to `/login?signed-out=1` (which says so) |
 * | `/register`, `/signup`, `/confirm-signup` | sign-up (signup-routes.ts) | |
 * | `/password` | form (signed in) | `{currentPassword, newPassword}` → `200 {user, csrfToken}` + a new cookie; every other session ends, this one is renewed |
 * | `/forgot-password` | form | `{email}` → `202`, the same whether or not the email exists |
 * | `/reset-password` | form (`?token=` kept in the link cookie: link-landing.ts) | `{token?, password}` → `200 {user}`; every session of the user ends |
 * | `/account` | who is signed in; a portal session: its tenant, role and what it may do (portal-account.ts) | — |
 */
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { changePassword } from '../../shared/accounts/account-flows.ts';
import type { AccountDeps } from '../../shared/accounts/deps.ts';
import {
  completePasswordLink,
  lifetimeText,
  passwordLinkEmail,
  requestPasswordReset,
} from '../../shared/accounts/password-links.ts';
import { endSession, startSession } from '../../shared/accounts/sessions.ts';
import { checkCredentials } from '../../shared/accounts/sign-in.ts';
import { createCsrfToken } from '../../shared/accounts/csrf.ts';
import { publicUser, type User } from '../../shared/accounts/users.ts';
import type { PortalPrincipal } from '../../shared/tokens/principal.ts';
import { forbidden, unauthorized } from '../../shared/errors/app-error.ts';
import { continueAs, sessionOf } from '../auth/session-strategy.ts';
import { servesGraphiql } from '../graphql/graphiql.ts';
import { ownOrigin } from '../http/own-origin.ts';
import { clearSessionCookie, linkCookie, setLinkCookie, setSessionCookie } from './cookies.ts';
import { keepLinkToken, linkPageData, postedLinkToken } from './link-landing.ts';
import { signUpRoutes } from './signup-routes.ts';
import { portalAccount } from './portal-account.ts';
import { orShowForm } from './form-errors.ts';
import { answerPage, signedInUser, wantsJson, type PageContext } from './page.ts';
import { ACCOUNT_PATHS, safeNext } from './paths.ts';

/** Where a browser lands after signing in when it was going nowhere in particular. */
export const HOME_PATH = '/';

/** What the sign-in page says to a browser whose form was sent after its session ended. */
export const SESSION_ENDED =
  'You were signed out before the form was sent (the session expired, or you signed out in another tab), so nothing was changed. Sign in to go back to the form, and send it again.';

/** What the sign-in page says to the browser that just signed out (`?signed-out=1`, a fixed sentence). */
export const SIGNED_OUT = 'You are signed out.';

/** The signed-in user's own page (password, sign-out). */
export const ACCOUNT_PAGE = '/account';

type Body = Record<string, unknown>;
const bodyOf = (ctx: Context): Body => {
  const body = ctx.request.body;
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Body) : {};
};

export function accountRoutes(deps: { accounts: AccountDeps; pages: PageContext }): Middleware {
  const { accounts, pages } = deps;
  const router = new Router();
  const minLength = accounts.config.auth.passwordMinLength;

  /** Starts a new session for `user` (ending the one the request came with: no fixation) and answers. */
  async function signIn(ctx: Context, user: User, status: number): Promise<void> {
    const session = await startSession(accounts, user.id, { replacing: sessionOf(ctx.state.principal)?.id });
    setSessionCookie(ctx, pages.cookies, session.cookie, session.expiresAt);
    ctx.set('Cache-Control', 'no-store');
    if (wantsJson(ctx)) {
      ctx.status = status;
      ctx.body = {
        user: publicUser(user),
        csrfToken: createCsrfToken(session.csrfSecret),
        _links: { self: { href: ctx.path }, logout: { href: ACCOUNT_PATHS.logout, method: 'POST' } },
      };
    } else {
      ctx.status = 303;
      ctx.redirect(safeNext(bodyOf(ctx).next, HOME_PATH));
    }
  }

  router.get(ACCOUNT_PATHS.login, (ctx) => {
    const next = safeNext(ctx.query.next, HOME_PATH);
    // a browser already signed in with an account goes where signing in would take it (never back
    // here); a portal session, which has no account, may still sign in with one
    if (signedInUser(ctx) && !wantsJson(ctx))
      return ctx.redirect(next.split(/[?#]/)[0] === ACCOUNT_PATHS.login ? HOME_PATH : next);
    return answerPage(ctx, pages, {
      page: 'login',
      data: { next, signup: accounts.config.auth.signup, email: null },
      // a console form sent after its session ended lands here (api/console/context.ts `signedIn`);
      // a browser that signed out, from POST /logout
      ...(ctx.query.ended === '1'
        ? { notice: SESSION_ENDED }
        : ctx.query['signed-out'] === '1'
          ? { notice: SIGNED_OUT }
          : {}),
    });
  });

  router.post(ACCOUNT_PATHS.login, async (ctx) => {
    const body = bodyOf(ctx);
    const form = {
      page: 'login' as const,
      data: {
        next: safeNext(body.next, HOME_PATH),
        signup: accounts.config.auth.signup,
        email: typeof body.email === 'string' ? body.email : null,
      },
    };
    await orShowForm(ctx, pages, form, async () =>
      signIn(ctx, await checkCredentials(accounts, { email: body.email, password: body.password }), 200),
    );
  });

  router.post(ACCOUNT_PATHS.logout, async (ctx) => {
    const session = sessionOf(ctx.state.principal);
    if (session) await endSession(accounts, session.id);
    clearSessionCookie(ctx, pages.cookies);
    if (wantsJson(ctx)) ctx.status = 204;
    else {
      ctx.status = 303;
      ctx.redirect(`${ACCOUNT_PATHS.login}?signed-out=1`);
    }
  });

  signUpRoutes(router, { accounts, pages, bodyOf, signIn });

  const needsSession = (ctx: Context) => {
    const session = sessionOf(ctx.state.principal);
    if (!session)
      throw unauthorized('sign in first: changing the password needs a sign-in session', {
        code: 'APP_UNAUTHENTICATED',
      });
    if (session.userId === null)
      throw forbidden('a portal session has no password to change: it was opened by a portal link, not an account', {
        code: 'APP_FORBIDDEN',
        data: { reason: 'portal session' },
      });
    return session as typeof session & { userId: string };
  };

  router.get(ACCOUNT_PATHS.password, (ctx) => {
    // signed out: to the sign-in page; a portal session is refused with the reason (needsSession)
    if (!sessionOf(ctx.state.principal) && !wantsJson(ctx))
      return ctx.redirect(`${ACCOUNT_PATHS.login}?next=${encodeURIComponent(ACCOUNT_PATHS.password)}`);
    needsSession(ctx);
    return answerPage(ctx, pages, { page: 'password', data: { minLength } });
  });

  router.post(ACCOUNT_PATHS.password, async (ctx) => {
    const session = needsSession(ctx);
    const body = bodyOf(ctx);
    await orShowForm(ctx, pages, { page: 'password', data: { minLength } }, async () => {
      const { user, session: renewed } = await changePassword(accounts, session.userId, {
        currentPassword: body.currentPassword,
        newPassword: body.newPassword,
      });
      // the session this request came with has ended: the browser carries on with the new one
      setSessionCookie(ctx, pages.cookies, renewed.cookie, renewed.expiresAt);
      continueAs(ctx, renewed, user);
      ctx.set('Cache-Control', 'no-store');
      if (wantsJson(ctx))
        ctx.body = {
          user: publicUser(user),
          csrfToken: createCsrfToken(renewed.csrfSecret),
          _links: { self: { href: ctx.path }, logout: { href: ACCOUNT_PATHS.logout, method: 'POST' } },
        };
      else
        await answerPage(ctx, pages, {
          page: 'home',
          data: { graphiql: servesGraphiql(pages.config) },
          notice: 'Your password is changed; your other sessions have ended.',
        });
    });
  });

  router.get(ACCOUNT_PATHS.forgotPassword, (ctx) =>
    answerPage(ctx, pages, { page: 'forgot-password', data: { sent: false } }),
  );

  router.post(ACCOUNT_PATHS.forgotPassword, async (ctx) => {
    // not awaited: a link is made (a row written) only for an email someone has, and an answer
    // that waited for it would tell by its time which emails exist
    requestPasswordReset(accounts, bodyOf(ctx).email, ownOrigin(ctx)).catch((error: unknown) =>
      accounts.log.error({ err: error }, 'a password reset could not be made'),
    );
    await answerPage(ctx, pages, {
      page: 'forgot-password',
      status: 202,
      data: { sent: true, validFor: lifetimeText(accounts.config.auth.resetTtl) },
    });
  });

  /** The set-password page's data (link-landing.ts `linkPageData`). */
  const resetData = async (given: unknown, kept: string | undefined) => ({
    ...(await linkPageData(given, kept, (token) => passwordLinkEmail(accounts, token))),
    minLength,
  });

  router.get(ACCOUNT_PATHS.resetPassword, async (ctx) => {
    if (keepLinkToken(ctx, pages.cookies, ACCOUNT_PATHS.resetPassword)) return;
    return answerPage(ctx, pages, {
      page: 'reset-password',
      data: await resetData(ctx.query.token, linkCookie(ctx, pages.cookies)),
    });
  });

  router.post(ACCOUNT_PATHS.resetPassword, async (ctx) => {
    const body = bodyOf(ctx);
    const kept = linkCookie(ctx, pages.cookies);
    const form = { page: 'reset-password' as const, data: await resetData(body.token, kept) };
    await orShowForm(ctx, pages, form, async () => {
      const user = await completePasswordLink(accounts, postedLinkToken(body.token, kept), body.password);
      setLinkCookie(ctx, pages.cookies, ACCOUNT_PATHS.resetPassword, null); // spent
      if (wantsJson(ctx)) ctx.body = { user: publicUser(user) };
      else
        await answerPage(ctx, pages, {
          page: 'login',
          data: { next: HOME_PATH, signup: accounts.config.auth.signup, email: user.email },
          notice: 'Your password is set: sign in with it.',
        });
    });
  });

  router.get(ACCOUNT_PAGE, (ctx) => {
    // a portal session is signed in, without an account: the page says what it is and may do
    const principal = ctx.state.principal as PortalPrincipal | undefined;
    if (principal?.kind === 'portal')
      return answerPage(ctx, pages, { page: 'home', data: { portal: portalAccount(principal) } });
    if (!signedInUser(ctx)) {
      if (wantsJson(ctx)) throw unauthorized('sign in first', { code: 'APP_UNAUTHENTICATED' });
      return ctx.redirect(`${ACCOUNT_PATHS.login}?next=${encodeURIComponent(ACCOUNT_PAGE)}`);
    }
    return answerPage(ctx, pages, { page: 'home', data: { graphiql: servesGraphiql(pages.config) } });
  });

  return router.routes() as Middleware;
}

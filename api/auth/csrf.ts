import type { Context, Middleware } from 'koa';
import { forbidden } from '../../shared/errors/app-error.ts';
import { ownOrigin } from '../http/own-origin.ts';
import type { Config } from '../../shared/config/index.ts';
import { formKeyOf, verifyCsrfToken } from '../../shared/accounts/csrf.ts';
import { sessionOf } from './session-strategy.ts';
import { anonymousCsrfSecret, cookieSettings } from '../accounts/cookies.ts';
import { ACCOUNT_PATHS, ANONYMOUS_FORM_PATHS } from '../accounts/paths.ts';
import { routePath } from '../http/route-path.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** AppError 403 `APP_CSRF_INVALID`. */
const csrfInvalid = (reason: string, message = `cross-site request refused: ${reason}`) =>
  forbidden(message, { code: 'APP_CSRF_INVALID', data: { reason }, expose: true });

/**
 * A form's token made from another session than the one it is sent in: the form's page was opened
 * before the browser signed in again (or changed its password, which renews the session), in
 * another tab maybe. Said as what happened and what to do, since the person who sees it did
 * nothing wrong: going back loads the form's page again, with a token of this session, and the
 * browser keeps what the form held.
 */
const STALE_FORM =
  'this form was opened in an earlier session (you have signed in again, or changed your password, since), so it was not sent: go back to the form and send it again';

/**
 * Whether the request comes from this site's own pages: `Sec-Fetch-Site` is `same-origin` or
 * `none` (typed by the user) when the browser sends it, and `Origin`, when sent, is this origin or
 * one `cors.origins` admits with credentials. Clients that send neither (not browsers) pass.
 */
export function fromOwnSite(ctx: Context, cors: Config['cors']): boolean {
  const origin = ctx.get('origin');
  const trusted = (value: string) => value === ownOrigin(ctx) || (cors.credentials && cors.origins.includes(value));
  if (origin && origin !== 'null' && trusted(origin)) return true;
  if (origin) return false; // another origin, or `null` (sandboxed frames, some redirects)
  const site = ctx.get('sec-fetch-site');
  return !site || site === 'same-origin' || site === 'none';
}

/**
 * CSRF protection, in the `user` slot after authentication. An unsafe request
 * authenticated by the session cookie needs a token made from its session (`X-CSRF-Token`
 * header or `_csrf` form field) and must come from this site; so do the anonymous account forms
 * (sign-up, forgot and reset password), with a token made from the `app_csrf` cookie. `POST
 * /login` checks only where it comes from. Requests with a bearer token, or with no credentials
 * on other paths, are exempt: a browser never adds those by itself. Refusals are 403
 * `APP_CSRF_INVALID`.
 *
 * A valid token sent in the `_csrf` field that carries a form key (shared/accounts/csrf.ts) leaves
 * the key in `ctx.state.formKey`, for the console to act once per rendered form; a token in the
 * header never does (API clients send one token with every request).
 */
export function csrf(options: { config: Pick<Config, 'cors' | 'auth' | 'env'> }): Middleware {
  const cookies = cookieSettings(options.config);
  return async function csrf(ctx, next) {
    if (SAFE_METHODS.has(ctx.method)) return next();
    const session = sessionOf(ctx.state.principal);
    const path = routePath(ctx.path); // `/LOGIN`, `/login/`: the same handler, so the same check
    const anonymousForm = !session && ANONYMOUS_FORM_PATHS.has(path);
    const login = path === ACCOUNT_PATHS.login;
    if (!session && !anonymousForm && !login) return next();
    if (!fromOwnSite(ctx, options.config.cors)) throw csrfInvalid('the request comes from another site');
    if (login) return next();
    const body = ctx.request.body as Record<string, unknown> | undefined;
    const header = ctx.get('x-csrf-token');
    const token = header || (body && typeof body === 'object' ? body._csrf : undefined);
    const secret = session ? session.csrfSecret : anonymousCsrfSecret(ctx, cookies, false);
    if (!verifyCsrfToken(secret, token)) {
      if (!token) throw csrfInvalid('no CSRF token (X-CSRF-Token header or _csrf field)');
      const reason = 'the CSRF token is not valid for this session';
      throw header ? csrfInvalid(reason) : csrfInvalid(reason, STALE_FORM);
    }
    if (!header) {
      const formKey = formKeyOf(token);
      if (formKey) ctx.state.formKey = formKey;
    }
    if (body && typeof body === 'object' && !Array.isArray(body)) delete body._csrf;
    await next();
  };
}

/**
 * The account pages, answered in the representation the client prefers (spec: "Controller
 * helpers", `negotiate` and `render`): HTML from the Eta templates in api/views/ (escaped by
 * default) for browsers, or to JSON clients the page object `{page, data, user, paths,
 * csrfToken, errors?}` with `_links`. The CSRF token is the session's when signed in, else one
 * made from the anonymous `app_csrf` cookie (sent with the page when the browser has none).
 */
import { fileURLToPath } from 'node:url';
import type { Context } from 'koa';
import { Eta } from 'eta';
import { createCsrfToken } from '../../shared/accounts/csrf.ts';
import { publicUser, type User } from '../../shared/accounts/users.ts';
import type { Config } from '../../shared/config/index.ts';
import type { UserPrincipal } from '../../shared/tokens/principal.ts';
import { sessionOf } from '../auth/session-strategy.ts';
import { jsonContentType, representation } from '../routing/negotiate.ts';
import { anonymousCsrfSecret, type CookieSettings } from './cookies.ts';
import { ACCOUNT_PATHS } from './paths.ts';

export const VIEWS_DIR = fileURLToPath(new URL('../views/', import.meta.url));

export interface PageContext {
  config: Pick<Config, 'graphql' | 'auth' | 'env'>;
  cookies: CookieSettings;
  views: Eta;
}

export const createViews = (config: Pick<Config, 'env'>) => new Eta({ views: VIEWS_DIR, cache: config.env === 'production' });

/** Whether the client wants JSON: it sent JSON, or it prefers a JSON media type. */
export const wantsJson = (ctx: Context): boolean => !!ctx.is('json') || representation(ctx.accepts.bind(ctx)) === 'json';

/** The CSRF token for the request's next unsafe request. */
export function csrfTokenFor(ctx: Context, pages: PageContext): string {
  const session = sessionOf(ctx.state.principal);
  return createCsrfToken(session ? session.csrfSecret : (anonymousCsrfSecret(ctx, pages.cookies, true) as string));
}

/** The signed-in user of a session request (token principals are not users of these pages). */
export function signedInUser(ctx: Context): Pick<User, 'id' | 'email' | 'role' | 'owner'> | null {
  const principal = ctx.state.principal as UserPrincipal | undefined;
  return principal?.kind === 'user' ? { id: principal.userId, email: principal.email, role: principal.roles[0] as User['role'], owner: principal.owner } : null;
}

export interface PageAnswer {
  page: 'login' | 'register' | 'forgot-password' | 'reset-password' | 'password' | 'home';
  data: Record<string, unknown>;
  status?: number;
  errors?: { code?: string; message: string }[];
  notice?: string;
  /** The user to show (default: the request's signed-in user). */
  user?: User | null;
}

export function answerPage(ctx: Context, pages: PageContext, answer: PageAnswer): void {
  const csrfToken = csrfTokenFor(ctx, pages);
  const user = answer.user === undefined ? signedInUser(ctx) : answer.user && publicUser(answer.user);
  const paths = { ...ACCOUNT_PATHS, graphql: pages.config.graphql ? pages.config.graphql.path : null };
  ctx.status = answer.status ?? 200;
  ctx.set('Cache-Control', 'no-store');
  if (wantsJson(ctx)) {
    ctx.type = jsonContentType(ctx.accepts.bind(ctx));
    ctx.body = {
      page: answer.page,
      data: answer.data,
      user,
      paths,
      csrfToken,
      ...(answer.errors ? { errors: answer.errors } : {}),
      _links: { self: { href: ctx.path } },
    };
    return;
  }
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = pages.views.render(`./${answer.page}`, { data: answer.data, user, paths, csrfToken, errors: answer.errors, notice: answer.notice });
}

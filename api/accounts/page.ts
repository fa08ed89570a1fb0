/**
 * The account pages, answered through the page renderer (api/console/pages/render.ts: the controller
 * helpers `negotiate` and `render`): HTML from the Eta templates in api/console/views/ (escaped by
 * default) for browsers, or to JSON clients the page object `{page, data, user, paths,
 * csrfToken, errors?}` with `_links`. The CSRF token is the session's when signed in, else one
 * made from the anonymous `app_csrf` cookie (sent with the page when the browser has none).
 */
import type { Context } from 'koa';
import type { Eta } from 'eta';
import { publicUser, type User } from '../../shared/accounts/users.ts';
import type { Config } from '../../shared/config/index.ts';
import type { UserPrincipal } from '../../shared/tokens/principal.ts';
import { renderPage, type RenderDeps } from '../console/pages/render.ts';
import type { CookieSettings } from './cookies.ts';

export { csrfTokenFor } from '../console/pages/render.ts';

export interface PageContext extends RenderDeps {
  config: Pick<Config, 'graphql' | 'auth' | 'env'>;
  cookies: CookieSettings;
  views: Eta;
}

export { wantsJson } from '../console/pages/negotiate.ts';

/** The signed-in user of a session request (token principals are not users of these pages). */
export function signedInUser(ctx: Context): Pick<User, 'id' | 'email' | 'role' | 'owner'> | null {
  const principal = ctx.state.principal as UserPrincipal | undefined;
  return principal?.kind === 'user'
    ? { id: principal.userId, email: principal.email, role: principal.roles[0] as User['role'], owner: principal.owner }
    : null;
}

export interface PageAnswer {
  page: 'login' | 'register' | 'confirm-signup' | 'forgot-password' | 'reset-password' | 'password' | 'home' | 'portal';
  data: Record<string, unknown>;
  status?: number;
  errors?: { code?: string; message: string }[];
  notice?: string;
  /** The user to show (default: the request's signed-in user or portal session). */
  user?: User | null;
}

export function answerPage(ctx: Context, pages: PageContext, answer: PageAnswer): Promise<void> {
  return renderPage(ctx, pages, answer.page, answer.data, {
    status: answer.status ?? 200,
    errors: answer.errors,
    notice: answer.notice,
    user: answer.user === undefined ? undefined : answer.user && publicUser(answer.user),
  });
}

/**
 * The console's error page: a problem answered to a browser on a console path becomes the page of
 * its message and code with a link back, rendered by the console's page renderer, the status and
 * headers kept (api/middleware/errors.ts writes the problem first and hands it here).
 */
import type { Context } from 'koa';
import { PAGE_VISIT_HEADER, pageRepresentation } from '../model-framework/routing/negotiate.ts';
import { safeNext } from '../accounts/paths.ts';
import { ownOrigin } from '../http/own-origin.ts';
import { renderPage, type RenderDeps } from './pages/render.ts';

/**
 * Page titles that say what happened where the status's own name ("Forbidden") would not: a form
 * whose CSRF token is refused was not sent (its page was opened in an earlier session, mostly).
 */
const TITLES: Readonly<Record<string, string>> = Object.freeze({ APP_CSRF_INVALID: 'The form was not sent' });

/** The refusals of a form sent again (form-once.ts): this submission changed nothing, the first one acts. */
const SENT_AGAIN = new Set(['APP_CONSOLE_FORM_IN_PROGRESS', 'APP_CONSOLE_FORM_ALREADY_SENT']);

/** What api/middleware/errors.ts calls with a problem written: the console's page of it, for a browser on a console path. */
export const consoleErrorPage =
  (pages: RenderDeps) =>
  async (ctx: Context): Promise<void> => {
    if (wantsConsolePage(ctx)) await answerPage(ctx, pages);
  };

/**
 * Whether the problem is answered as a console page: a browser (it asks for `text/html` and
 * prefers it to JSON, sends no JSON body and is no client-side page visit) on a console path
 * (not the API's `/api/` nor `/_app/`). Everyone else keeps problem+json.
 */
function wantsConsolePage(ctx: Context): boolean {
  if (ctx.path.startsWith('/api/') || ctx.path.startsWith('/_app/')) return false;
  if (!/\btext\/html\b/.test(ctx.get('Accept')) || ctx.is('json') || ctx.get(PAGE_VISIT_HEADER) === 'true')
    return false;
  return pageRepresentation({ get: (name) => ctx.get(name), accepts: (...types) => ctx.accepts(...types) }) === 'html';
}

/**
 * The problem just written, as the console's error page (its message and code, a link back): the
 * same status and headers, rendered by the console's page renderer; should rendering fail, the
 * problem+json stays the answer.
 */
async function answerPage(ctx: Context, pages: RenderDeps): Promise<void> {
  const problem = JSON.parse(String(ctx.body)) as { status: number; title: string; detail: string; code?: string };
  const referer = refererPath(ctx);
  const back = referer !== ctx.originalUrl && referer;
  try {
    await renderPage(
      ctx,
      pages,
      'error',
      {
        status: problem.status,
        title: TITLES[problem.code ?? ''] ?? problem.title,
        back: back || '/',
        form: ctx.method !== 'GET' && ctx.method !== 'HEAD',
        sentAgain: SENT_AGAIN.has(problem.code ?? ''),
      },
      {
        status: problem.status,
        errors: [{ message: problem.detail, status: problem.status, ...(problem.code ? { code: problem.code } : {}) }],
      },
    );
    ctx.remove('ETag');
  } catch {
    ctx.status = problem.status; // the problem+json written before stays
  }
}

/**
 * The page the request came from: the Referer when it is this site's (its path and query), else
 * none; where a link back leads, and where a form sent after its session ended sends the browser
 * once it is signed in again. This site is `ownOrigin` (Koa's `ctx.origin` is the request's
 * `Origin` header, which a GET does not send), and the path must be one of this site's as a
 * sign-in's `next` is (`//host/…` in a link leads to that host).
 */
export function refererPath(ctx: Context): string | undefined {
  const referer = ctx.get('Referer');
  if (!referer) return undefined;
  try {
    const url = new URL(referer);
    return url.origin === ownOrigin(ctx) ? safeNext(url.pathname + url.search, '') || undefined : undefined;
  } catch {
    return undefined;
  }
}

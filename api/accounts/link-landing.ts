/**
 * The first GET of a single-use link (`/reset-password?token=…`, `/portal?token=…`): a browser's
 * is answered 303 to the same page without the token, which it keeps in the link cookie of that
 * page (cookies.ts) for the form the page shows. The link's URL thus stays in the address bar and
 * the history for one redirect only, and never with a page a later visitor of a shared computer
 * could go back to; the links mailed and printed keep their shape. A client that asks for JSON
 * (or a client-side page visit) gets the page object as before: it has no history to keep the
 * token in, and it posts the token in the form's `token` field.
 */
import type { Context } from 'koa';
import { pageRepresentation } from '../model-framework/routing/negotiate.ts';
import { setLinkCookie, type CookieSettings } from './cookies.ts';

/** Answers the redirect (true) when `ctx` is a browser's GET of `path` with `?token=`; else leaves it (false). */
export function keepLinkToken(ctx: Context, settings: CookieSettings, path: string): boolean {
  if (ctx.query.token === undefined) return false;
  const wanted = pageRepresentation({ get: (name) => ctx.get(name), accepts: (...types) => ctx.accepts(...types) });
  if (wanted !== 'html') return false;
  const token = ctx.query.token;
  // a token given twice, or not shaped like one, is not kept (the page then asks for a new link)
  setLinkCookie(ctx, settings, path, typeof token === 'string' ? token : null);
  const rest = new URLSearchParams(ctx.querystring);
  rest.delete('token');
  const query = rest.toString();
  ctx.set('Cache-Control', 'no-store');
  ctx.status = 303;
  ctx.redirect(query ? `${path}?${query}` : path);
  return true;
}

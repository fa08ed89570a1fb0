/**
 * The first GET of a single-use link (`/reset-password?token=…`, `/confirm-signup?token=…`, `/portal?token=…`): a browser's
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

/**
 * The data of the page a set-password or sign-up link opens: `token` is echoed only where the
 * client gave it itself (a JSON client's `?token=`, a form posted with its `token` field), never
 * from the link cookie, so the token is not written into the HTML of a page opened from a link;
 * `link` says whether the page has a token to post (the form is shown) or not (the page asks for
 * a new link); `email` is the account's while the link works (else null), for the form's username
 * field.
 */
export async function linkPageData(
  given: unknown,
  kept: string | undefined,
  emailOf: (token: string | undefined) => Promise<string | null>,
): Promise<{ token: string; link: boolean; email: string | null }> {
  const token = typeof given === 'string' ? given : '';
  const email = await emailOf(postedLinkToken(given, kept));
  return { token, link: token !== '' || kept !== undefined, email };
}

/** The token a link's form posts: its `token` field (scripted clients) first, else the one the link's GET kept in the cookie. */
export const postedLinkToken = (given: unknown, kept: string | undefined): string | undefined =>
  typeof given === 'string' && given !== '' ? given : kept;

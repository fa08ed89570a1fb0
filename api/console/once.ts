/**
 * One-time values a console form makes (a new signing secret, an API token, a set-password or a
 * portal link) reach the browser by POST/redirect/GET, so reloading the result never runs the
 * form again: the POST seals the value under a key of the session's own (the secret box of
 * shared/webhooks/secret-box.ts, AES-256-GCM, for this purpose alone) into a cookie
 * that lives `ONCE_TTL_S` and names the page it is for, and answers 303 to that page; the page
 * shows the value and clears the cookie, so a reload shows the page without it. Nothing is kept
 * on the server (every web process reads the cookie alike) and the value never stands in a URL.
 * JSON clients, which do not reload, get the result page in the POST's answer as before.
 */
import type { Context } from 'koa';
import { createSecretBox, type SecretBox } from '../../shared/webhooks/secret-box.ts';
import { sessionOf } from '../auth/session-strategy.ts';
import type { CookieSettings } from '../accounts/cookies.ts';
import { wantsJson } from './pages/negotiate.ts';

/** How long a one-time value waits for its page (seconds): the redirect follows at once. */
export const ONCE_TTL_S = 120;

const cookieName = (settings: CookieSettings) => (settings.secure ? '__Host-app_once' : 'app_once');

/** The box of this request's session (another session's cookie does not open in it); none without a session. */
const boxOf = (ctx: Context): SecretBox | undefined => {
  const session = sessionOf(ctx.state.principal);
  const box = session ? createSecretBox(session.csrfSecret, { purpose: 'console-once' }) : undefined;
  return box?.encrypted ? box : undefined;
};

function setCookie(ctx: Context, settings: CookieSettings, value: string | null): void {
  if (settings.secure) ctx.cookies.secure = true; // the proxy in front speaks TLS (cookies.ts)
  ctx.cookies.set(cookieName(settings), value, {
    httpOnly: true,
    sameSite: 'lax',
    secure: settings.secure,
    path: '/',
    overwrite: true,
    ...(value === null ? {} : { maxAge: ONCE_TTL_S * 1000 }),
  });
}

/**
 * Answers a form that made a one-time `value`: a browser with a session gets it sealed in the
 * cookie and 303 to `page`; anyone else gets `showNow()` (the result page in this answer).
 */
export async function showOnce(
  ctx: Context,
  settings: CookieSettings,
  page: string,
  value: unknown,
  showNow: () => Promise<void>,
): Promise<void> {
  const box = boxOf(ctx);
  if (!box || wantsJson(ctx)) return showNow();
  setCookie(ctx, settings, box.seal(JSON.stringify({ page, value, until: Date.now() + ONCE_TTL_S * 1000 })));
  ctx.status = 303;
  ctx.redirect(page);
}

/** The one-time value waiting for this page (`page`, its path), read once: the cookie is cleared. */
export function takeOnce<T = unknown>(ctx: Context, settings: CookieSettings, page: string): T | undefined {
  const text = ctx.cookies.get(cookieName(settings));
  if (!text) return undefined;
  const box = boxOf(ctx);
  let found: { page: string; value: T; until: number } | undefined;
  try {
    // only what this session's box sealed opens (a `plain:` value is never taken)
    if (box?.sealedHere(text)) found = JSON.parse(box.open(text));
  } catch {
    found = undefined; // another session's, or altered: it shows nothing
  }
  if (found && found.page !== page) return undefined; // another page's: it waits for its own
  setCookie(ctx, settings, null);
  return found && found.until > Date.now() ? found.value : undefined;
}

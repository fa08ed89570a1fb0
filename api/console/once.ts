/**
 * One-time values a console form makes (a new signing secret, an API token, a set-password or a
 * portal link) reach the browser by POST/redirect/GET, so reloading the result never runs the
 * form again: the POST seals the value under a key of the session's own (the secret box of
 * shared/webhooks/secret-box.ts, AES-256-GCM, for this purpose alone) into a cookie
 * that lives `ONCE_TTL_S` and names the page it is for, and answers 303 to that page; the page
 * shows the value and clears the cookie, so a reload shows the page without it. The value is
 * never kept on the server (every web process reads the cookie alike) and never stands in a URL.
 * JSON clients, which do not reload, get the result page in the POST's answer as before.
 *
 * A form sent again answers its first redirect again, cookie included (form-once.ts): the
 * browser may have dropped the first answer (a double click), and then the value was never
 * seen. So each value has an id, and the page that shows it marks the id as shown in the shared
 * store for as long as the cookie could live: a value comes to the page once, and a cookie that
 * comes back after that (or too late) gives `{shown: true}`, for the page to say so.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'koa';
import type { SharedStore } from '../../shared/stores/types.ts';
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
 * cookie and 303 to `page` (with `query`, such as the listing's filters and page the form was
 * sent from); anyone else gets `showNow()` (the result page in this answer).
 */
export async function showOnce(
  ctx: Context,
  settings: CookieSettings,
  page: string,
  value: unknown,
  showNow: () => Promise<void>,
  query = '',
): Promise<void> {
  const box = boxOf(ctx);
  if (!box || wantsJson(ctx)) return showNow();
  const until = Date.now() + ONCE_TTL_S * 1000;
  setCookie(ctx, settings, box.seal(JSON.stringify({ id: randomUUID(), page, value, until })));
  ctx.status = 303;
  ctx.redirect(`${page}${query}`);
}

export interface OnceDeps {
  cookies: CookieSettings;
  /** Where the ids of the values shown are marked (the shared store's entries). */
  shared: Pick<SharedStore, 'entries' | 'logFailure'>;
}

/** The one-time values' dependencies out of the console's. */
export const onceDeps = (deps: { pages: { cookies: CookieSettings }; shared: OnceDeps['shared'] }): OnceDeps => ({
  cookies: deps.pages.cookies,
  shared: deps.shared,
});

/** What a page finds: its value (first time), `{shown: true}` (shown before, or expired), or nothing. */
export type Taken<T> = { value: T } | { shown: true } | undefined;

/** Marks value `id` as shown; false when it was already. A store that does not answer lets the value show. */
async function firstShowing(deps: OnceDeps, id: string | undefined): Promise<boolean> {
  if (!id) return true;
  try {
    return await deps.shared.entries.add(`console-once:${id}`, true, ONCE_TTL_S * 1000);
  } catch (error) {
    deps.shared.logFailure(error, 'console one-time value');
    return true; // the cookie is cleared as it is shown: only an answer sent again could show it twice
  }
}

/** The one-time value waiting for this page (`page`, its path), read once: the cookie is cleared. */
export async function takeOnce<T = unknown>(ctx: Context, deps: OnceDeps, page: string): Promise<Taken<T>> {
  const settings = deps.cookies;
  const text = ctx.cookies.get(cookieName(settings));
  if (!text) return undefined;
  const box = boxOf(ctx);
  let found: { id?: string; page: string; value: T; until: number } | undefined;
  try {
    // only what this session's box sealed opens (a `plain:` value is never taken)
    if (box?.sealedHere(text)) found = JSON.parse(box.open(text));
  } catch {
    found = undefined; // another session's, or altered: it shows nothing
  }
  if (found && found.page !== page) return undefined; // another page's: it waits for its own
  setCookie(ctx, settings, null);
  if (!found) return undefined;
  return found.until > Date.now() && (await firstShowing(deps, found.id)) ? { value: found.value } : { shown: true };
}

/**
 * The cookies of the account paths: the session cookie (`auth.session.cookie`) and, before
 * sign-in, `app_csrf`, which holds the secret the CSRF tokens of anonymous forms are made from.
 * Both are `HttpOnly`, `SameSite=Lax`, `Path=/`; in production both are `Secure` and carry the
 * `__Host-` prefix (the session cookie's name is configurable, the default has it). `Secure` is
 * sent even when the request reached this process over plain http: in production TLS ends at a
 * proxy in front, and a browser must never send the cookie back in clear.
 *
 * The link cookie (`app_link`; in production `__Secure-app_link`, since `__Host-` would need
 * `Path=/`) holds the token of a single-use link (a set-password or a portal link) between the
 * link's first GET and the form it opens, so the token leaves the address bar and the history at
 * once: `HttpOnly`, `SameSite=Lax` (a link followed from a webmail is a cross-site navigation, which
 * would drop a `Strict` cookie on the redirect that follows), `Path` the link's page alone, for
 * {@link LINK_COOKIE_MS} at most.
 */
import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import type { Config } from '../../shared/config/index.ts';

export interface CookieSettings {
  session: string;
  csrf: string;
  /** The link cookie's name (see above). */
  link: string;
  secure: boolean;
}

export const cookieSettings = (config: Pick<Config, 'auth' | 'env'>): CookieSettings => {
  const production = config.env === 'production';
  return {
    session: config.auth.session.cookie,
    csrf: production ? '__Host-app_csrf' : 'app_csrf',
    link: production ? '__Secure-app_link' : 'app_link',
    secure: production,
  };
};

function set(
  ctx: Context,
  settings: CookieSettings,
  name: string,
  value: string | null,
  options: { expires?: Date; maxAge?: number; path?: string } = {},
): void {
  if (settings.secure) ctx.cookies.secure = true; // see above: the proxy in front speaks TLS
  ctx.cookies.set(name, value, {
    httpOnly: true,
    sameSite: 'lax',
    secure: settings.secure,
    path: options.path ?? '/',
    overwrite: true,
    ...(options.expires ? { expires: options.expires } : {}),
    ...(options.maxAge ? { maxAge: options.maxAge } : {}),
  });
}

/** Sends the session cookie of a session just started (it lasts until the session's absolute expiry). */
export const setSessionCookie = (ctx: Context, settings: CookieSettings, value: string, expires: Date) =>
  set(ctx, settings, settings.session, value, { expires });

export const clearSessionCookie = (ctx: Context, settings: CookieSettings) => {
  if (ctx.cookies.get(settings.session)) set(ctx, settings, settings.session, null);
};

const SECRET_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The secret of this browser's anonymous CSRF tokens, from its `app_csrf` cookie; with `create`,
 * a new one is made and sent when it has none.
 */
export function anonymousCsrfSecret(ctx: Context, settings: CookieSettings, create: boolean): string | undefined {
  const given = ctx.cookies.get(settings.csrf);
  if (given && SECRET_SHAPE.test(given)) return given;
  if (!create) return undefined;
  const secret = randomBytes(32).toString('base64url');
  set(ctx, settings, settings.csrf, secret);
  return secret;
}

/**
 * How long the link cookie keeps a link's token: time to choose a password or press the portal's
 * button. The link itself still decides whether it works; one followed again after the cookie
 * expired starts over.
 */
export const LINK_COOKIE_MS = 30 * 60_000;

/** What a link's token looks like to be kept (the link's own check comes when it is used). */
const LINK_TOKEN_SHAPE = /^[A-Za-z0-9_-]{1,200}$/;

/** Keeps a link's token in the link cookie of its page (`path`), or clears it (`null`). */
export function setLinkCookie(ctx: Context, settings: CookieSettings, path: string, token: string | null): void {
  if (token !== null && !LINK_TOKEN_SHAPE.test(token)) token = null;
  if (token === null && !ctx.cookies.get(settings.link)) return;
  set(ctx, settings, settings.link, token, token === null ? { path } : { path, maxAge: LINK_COOKIE_MS });
}

/** The link token this browser keeps for the page it asks (the cookie is scoped to that page's path). */
export function linkCookie(ctx: Context, settings: CookieSettings): string | undefined {
  const token = ctx.cookies.get(settings.link);
  return token && LINK_TOKEN_SHAPE.test(token) ? token : undefined;
}

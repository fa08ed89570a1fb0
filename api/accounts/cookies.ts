/**
 * The cookies of the account paths: the session cookie (`auth.session.cookie`) and, before
 * sign-in, `app_csrf`, which holds the secret the CSRF tokens of anonymous forms are made from.
 * Both are `HttpOnly`, `SameSite=Lax`, `Path=/`; in production both are `Secure` and carry the
 * `__Host-` prefix (the session cookie's name is configurable, the default has it). `Secure` is
 * sent even when the request reached this process over plain http: in production TLS ends at a
 * proxy in front, and a browser must never send the cookie back in clear.
 */
import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import type { Config } from '../../shared/config/index.ts';

export interface CookieSettings {
  session: string;
  csrf: string;
  secure: boolean;
}

export const cookieSettings = (config: Pick<Config, 'auth' | 'env'>): CookieSettings => {
  const production = config.env === 'production';
  return { session: config.auth.session.cookie, csrf: production ? '__Host-app_csrf' : 'app_csrf', secure: production };
};

function set(ctx: Context, settings: CookieSettings, name: string, value: string | null, expires?: Date): void {
  if (settings.secure) ctx.cookies.secure = true; // see above: the proxy in front speaks TLS
  ctx.cookies.set(name, value, {
    httpOnly: true,
    sameSite: 'lax',
    secure: settings.secure,
    path: '/',
    overwrite: true,
    ...(expires ? { expires } : {}),
  });
}

/** Sends the session cookie of a session just started (it lasts until the session's absolute expiry). */
export const setSessionCookie = (ctx: Context, settings: CookieSettings, value: string, expires: Date) =>
  set(ctx, settings, settings.session, value, expires);

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

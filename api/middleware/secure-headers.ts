import type { Middleware } from 'koa';
import koaHelmet from 'koa-helmet';
import type { Config } from '../../shared/config/index.ts';
import { helmetOptions } from '../security/helmet-options.ts';
import { permissionsPolicy } from '../security/permissions-policy.ts';

/**
 * Secure headers: koa-helmet with the service's options and
 * `config.helmet`'s helmet options (given under `helmet` or `helmet.options`) merged over them,
 * plus `Permissions-Policy`. `config.helmet: false` sends none of them;
 * `helmet.permissionsPolicy: false` (or `sendPermissionsPolicy: false`) drops only `Permissions-Policy`. Requests
 * that arrived over https get the policy with `upgrade-insecure-requests`, others without.
 */
export function secureHeaders(options: { env: Config['env']; helmet: Config['helmet'] }): Middleware | undefined {
  const settings = options.helmet;
  if (settings === false) return undefined;
  const overHttp = koaHelmet(helmetOptions({ env: options.env, configured: settings.options, secure: false }));
  const overHttps = koaHelmet(helmetOptions({ env: options.env, configured: settings.options, secure: true }));
  const policy =
    settings.sendPermissionsPolicy && settings.permissionsPolicy !== false
      ? permissionsPolicy(settings.permissionsPolicy)
      : undefined;
  return async function secureHeaders(ctx, next) {
    if (policy) ctx.set('Permissions-Policy', policy);
    await (ctx.secure ? overHttps : overHttp)(ctx, next);
  };
}

import type { Middleware } from 'koa';
import { versionNotAcceptable } from '../http/not-acceptable.ts';
import type { CompiledRoute } from '../model-framework/routing/table.ts';

/**
 * A route declared with `version` answers 406 `APP_VERSION_NOT_ACCEPTABLE` to a client asking for
 * another version (`Accept: application/vnd.app.v2+json`), or refusing the route's own
 * (`…v1+json;q=0`, whatever else it accepts). A client asking for none is served.
 * `q` values are honoured: a client that accepts the route's version at all (`q` above 0) is
 * served in it even when it prefers one the route lacks (`…v1+json;q=0.1, …v2+json`), and
 * `ctx.state.apiVersion` becomes the version served.
 */
export function versionGuard(route: CompiledRoute): Middleware | undefined {
  if (!route.version) return undefined;
  const version = route.version;
  return async function versionGuard(ctx, next) {
    const asked = ctx.state.apiVersion;
    const q = ctx.state.acceptedVersions?.get(version);
    if (q === 0) throw versionNotAcceptable(version, asked ?? null);
    if (asked && asked !== version) {
      if (q !== undefined) {
        ctx.state.apiVersion = version;
        return next();
      }
      throw versionNotAcceptable(version, asked);
    }
    await next();
  };
}

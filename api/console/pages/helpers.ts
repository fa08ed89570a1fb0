import type { Middleware } from 'koa';
import { negotiate } from './negotiate.ts';
import { renderPage, type RenderDeps } from './render.ts';

/**
 * The page helpers on every request (controller helpers): `ctx.render(page,
 * props, {graphql})` (api/console/pages/render.ts) and `ctx.negotiate({html, json})`
 * (api/console/pages/negotiate.ts), for the console's pages, the account pages and the application's own
 * controllers alike.
 */
export function pageHelpers(deps: RenderDeps): Middleware {
  return async function pageHelpers(ctx, next) {
    ctx.render = (page, props, options) => renderPage(ctx, deps, page, props, options);
    ctx.negotiate = (handlers) => negotiate(ctx, handlers);
    await next();
  };
}

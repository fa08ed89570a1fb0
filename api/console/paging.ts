/**
 * `?page=` on the console's listings (the overview, an endpoint's deliveries, dead letters, find,
 * tokens). A value that is no page number (`0`, `-1`, `abc`: the REST rule, api/hal/pagination.ts)
 * sends a browser to the listing's first page, the rest of its query kept, and is refused to a
 * JSON client as the REST API refuses it (400 `APP_PAGINATION_INVALID`). A page past the end is
 * no error: the listing says so and links to its last page and its first (views/console/_past-end.eta).
 */
import type { Middleware, Context } from 'koa';
import { parsePagination } from '../hal/pagination.ts';
import { param, wantsJson } from './context.ts';

/** The largest page a listing's query takes (GraphQL's `Int`): any further page is as far past the end. */
export const MAX_PAGE = 2 ** 31 - 1;

/** Before a listing's page: a `?page=` that is no page number is the first page for a browser, a 400 for a JSON client. */
export const pageChecked: Middleware = async function pageChecked(ctx, next) {
  try {
    parsePagination({ page: ctx.query.page }, { perPage: 1, maxPerPage: 1 });
  } catch (error) {
    if (wantsJson(ctx)) throw error;
    const search = new URLSearchParams(ctx.querystring);
    search.delete('page');
    const rest = search.toString();
    ctx.redirect(`${ctx.path}${rest ? `?${rest}` : ''}`);
    return;
  }
  await next();
};

/** The page number from `?page=` (1 when absent or no page number, as after a form; at most {@link MAX_PAGE}). */
export function pageParam(ctx: Context): number {
  const page = Number(param(ctx, 'page') ?? 1);
  return Number.isInteger(page) && page >= 1 ? Math.min(page, MAX_PAGE) : 1;
}

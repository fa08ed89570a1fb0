/**
 * How deep an offset listing may be paged: every listing that pages by `page` and `per_page`
 * (deliveries, events, endpoints, event types, tokens, users, tenants, a declared model's records)
 * on every face (REST, GraphQL, the console, `users:list`). PostgreSQL reads every row an OFFSET skips, so a page's cost
 * grows with its depth, not with its size: one request for page 10^9 read all 200,000 deliveries
 * of a tenant (4 to 5 s) and held a connection of the web process's pool as long, and any caller
 * allowed to read a listing could repeat it. A page that starts past `api.maxPageOffset` rows is
 * refused; a client wanting older records narrows the listing with its filters (a time range, a
 * state, an endpoint…), which the listing's indexes read directly, whatever the table's size.
 */
import { unprocessable } from '../errors/app-error.ts';

/** The deepest page of `perPage` records a listing answers: its first row at most `maxOffset` rows in. */
export const deepestPage = (perPage: number, maxOffset: number): number => Math.floor(maxOffset / perPage) + 1;

/**
 * The rows page `page` of `perPage` skips; past `maxOffset` (`api.maxPageOffset`) 422
 * `APP_PAGE_TOO_DEEP`, whose message names `narrowBy`, the filters the listing has (none: the
 * message says only where the listing stops).
 */
export function pageOffset(page: number, perPage: number, maxOffset: number, narrowBy: readonly string[]): number {
  const offset = (page - 1) * perPage;
  if (offset <= maxOffset) return offset;
  const deepest = deepestPage(perPage, maxOffset);
  const narrow = narrowBy.length === 0 ? '' : `: narrow the listing with ${narrowBy.join(', ')} instead`;
  throw unprocessable(
    `page ${page} starts ${offset} records in, past the ${maxOffset} this listing pages through (with ${perPage} a page the deepest page is ${deepest})${narrow}`,
    { code: 'APP_PAGE_TOO_DEEP', data: { page, perPage, deepestPage: deepest, maxPageOffset: maxOffset } },
  );
}

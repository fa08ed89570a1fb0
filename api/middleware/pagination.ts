import type { Middleware } from 'koa';
import { parsePagination, type Pagination, type PaginationLimits } from '../hal/pagination.ts';

/**
 * Installs `ctx.pagination()` (Express-style `req.pagination()`): reads `?page=` and `?per_page=`
 * when called, so a bad value only refuses requests that page (400 `APP_PAGINATION_INVALID`).
 */
export function pagination(limits: PaginationLimits): Middleware {
  return async function pagination(ctx, next) {
    let parsed: Pagination | undefined;
    ctx.pagination = () => (parsed ??= parsePagination(ctx.query, limits));
    await next();
  };
}

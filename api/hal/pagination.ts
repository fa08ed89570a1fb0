import { badRequest } from '../../shared/errors/app-error.ts';

/** What `ctx.pagination()` answers (a pagination object); `skip`, `limit` and `offset` are conveniences for queries. */
export interface Pagination {
  page: number;
  perPage: number;
  skip: number;
  limit: number;
  offset: number;
}

export interface PaginationLimits {
  /** `config.api.perPage`, used when `per_page` is absent (default 25). */
  perPage: number;
  /** `config.api.maxPerPage`, the cap on `per_page` (default 100). */
  maxPerPage: number;
}

type QueryValue = string | string[] | undefined;

function readPositive(name: string, raw: QueryValue): number | undefined {
  if (raw === undefined) return undefined;
  const text = Array.isArray(raw) ? undefined : raw;
  const value = text !== undefined && /^\d{1,15}$/.test(text) ? Number(text) : NaN;
  if (!(value >= 1)) {
    throw badRequest(`${name} must be a whole number of at least 1, of at most 15 digits, got ${JSON.stringify(raw)}`, {
      code: 'APP_PAGINATION_INVALID',
      data: { parameter: name, value: raw },
    });
  }
  return value;
}

/**
 * Reads `?page=` and `?per_page=`. Absent: page 1 and `limits.perPage`. A `per_page` above
 * `limits.maxPerPage` is lowered to it (the answer's `perPage` says so). Anything that is not a
 * whole number of at least 1 is refused with 400 `APP_PAGINATION_INVALID` rather than silently
 * replaced, so a client's mistake shows. A page past the end is not an error: it is empty.
 */
export function parsePagination(query: Record<string, QueryValue>, limits: PaginationLimits): Pagination {
  const page = readPositive('page', query.page) ?? 1;
  const perPage = Math.min(readPositive('per_page', query.per_page) ?? limits.perPage, limits.maxPerPage);
  const offset = (page - 1) * perPage;
  if (!Number.isSafeInteger(offset)) {
    throw badRequest(`page ${page} is too far for per_page ${perPage}`, {
      code: 'APP_PAGINATION_INVALID',
      data: { parameter: 'page', value: query.page },
    });
  }
  return { page, perPage, skip: offset, limit: perPage, offset };
}

/** The page numbers a collection's links point at. `last` is at least 1 (an empty collection has one, empty, page). */
export function pageNumbers(
  page: number,
  perPage: number,
  total: number,
): { first: number; prev?: number; next?: number; last: number } {
  const last = Math.max(1, Math.ceil(total / perPage));
  return {
    first: 1,
    ...(page > 1 ? { prev: Math.min(page - 1, last) } : {}),
    ...(page < last ? { next: page + 1 } : {}),
    last,
  };
}

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

/** How a face names the two arguments in its refusals: REST's `page` and `per_page`, GraphQL's `page` and `perPage`. */
export interface PaginationNames {
  page: string;
  perPage: string;
}

const QUERY_NAMES: PaginationNames = { page: 'page', perPage: 'per_page' };

/** A query string's text of digits, or a number as a GraphQL argument carries it. */
function readPositive(name: string, raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const value =
    typeof raw === 'number'
      ? Number.isSafeInteger(raw)
        ? raw
        : NaN
      : typeof raw === 'string' && /^\d{1,15}$/.test(raw)
        ? Number(raw)
        : NaN;
  if (!(value >= 1)) {
    throw badRequest(`${name} must be a whole number of at least 1, of at most 15 digits, got ${JSON.stringify(raw)}`, {
      code: 'APP_PAGINATION_INVALID',
      data: { parameter: name, value: raw },
    });
  }
  return value;
}

/**
 * The page asked for by `values.page` and `values.perPage` (text or numbers; absent: page 1 and
 * `limits.perPage`), a refusal naming them as `names` says. A `perPage` above
 * `limits.maxPerPage` is lowered to it (the answer's `perPage` says so). Anything that is not a
 * whole number of at least 1 is refused with 400 `APP_PAGINATION_INVALID` rather than silently
 * replaced, so a client's mistake shows. A page past the end is not an error: it is empty.
 */
export function pageFrom(
  values: { page?: unknown; perPage?: unknown },
  limits: PaginationLimits,
  names: PaginationNames = QUERY_NAMES,
): Pagination {
  const page = readPositive(names.page, values.page) ?? 1;
  const perPage = Math.min(readPositive(names.perPage, values.perPage) ?? limits.perPage, limits.maxPerPage);
  const offset = (page - 1) * perPage;
  if (!Number.isSafeInteger(offset)) {
    throw badRequest(`${names.page} ${page} is too far for ${names.perPage} ${perPage}`, {
      code: 'APP_PAGINATION_INVALID',
      data: { parameter: names.page, value: values.page },
    });
  }
  return { page, perPage, skip: offset, limit: perPage, offset };
}

/** Reads `?page=` and `?per_page=` by the rules of `pageFrom`. */
export function parsePagination(query: Record<string, QueryValue>, limits: PaginationLimits): Pagination {
  return pageFrom({ page: query.page, perPage: query.per_page }, limits);
}

/**
 * The page numbers a collection's links point at. `last` is at least 1 (an empty collection has
 * one, empty, page) and at most `deepest`, the deepest page the listing answers (every offset
 * listing refuses a page past its paging bound, shared/db/page-depth.ts): no link leads to a
 * refusal.
 */
export function pageNumbers(
  page: number,
  perPage: number,
  total: number,
  deepest = Number.POSITIVE_INFINITY,
): { first: number; prev?: number; next?: number; last: number } {
  const last = Math.max(1, Math.min(Math.ceil(total / perPage), deepest));
  return {
    first: 1,
    ...(page > 1 ? { prev: Math.min(page - 1, last) } : {}),
    ...(page < last ? { next: page + 1 } : {}),
    last,
  };
}

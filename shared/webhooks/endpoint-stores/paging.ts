/**
 * The page every adapter answers a listing with (`{records, page, perPage, total, pages}`),
 * computed once here so the adapters agree on the edge cases: a listing that was not paged is one
 * page of everything (or no page when nothing matched), and a page past the end is empty.
 */
import type { StoredEndpoint, StoredEndpointPage, StoredEndpointQuery } from './types.ts';

export function pageOf(
  records: StoredEndpoint[],
  total: number,
  query: Pick<StoredEndpointQuery, 'page' | 'perPage'>,
): StoredEndpointPage {
  if (query.perPage === undefined) {
    return { records, page: 1, perPage: records.length, total, pages: total === 0 ? 0 : 1 };
  }
  return { records, page: query.page ?? 1, perPage: query.perPage, total, pages: Math.ceil(total / query.perPage) };
}

/** The records of one page of `all` (already filtered and in order), for stores that filter in memory. */
export function pageInMemory(
  all: StoredEndpoint[],
  query: Pick<StoredEndpointQuery, 'page' | 'perPage'>,
): StoredEndpointPage {
  if (query.perPage === undefined) return pageOf(all, all.length, query);
  const start = ((query.page ?? 1) - 1) * query.perPage;
  return pageOf(all.slice(start, start + query.perPage), all.length, query);
}

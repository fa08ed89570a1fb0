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

/**
 * One page of `all` (already filtered and in order), for stores that filter in memory; only the
 * page's items are made into records.
 */
export function pageInMemory<T>(
  all: T[],
  query: Pick<StoredEndpointQuery, 'page' | 'perPage'>,
  toRecord: (item: T) => StoredEndpoint,
): StoredEndpointPage {
  if (query.perPage === undefined) return pageOf(all.map(toRecord), all.length, query);
  const start = ((query.page ?? 1) - 1) * query.perPage;
  return pageOf(all.slice(start, start + query.perPage).map(toRecord), all.length, query);
}

/** Where a page starts among the matches, and how many it holds (undefined: all, the listing is not paged). */
export interface PageWindow {
  offset: number;
  limit?: number;
}

/**
 * A listing for stores that count the matches first (drizzle, mssql, mongoose): `fetch` is asked
 * for the page's records only when the page holds any, so a page past the end costs the count
 * alone. Unlike `pageOf`, a listing that is not paged answers the page it was asked for, empty
 * past page 1.
 */
export async function listCountedFirst(
  query: Pick<StoredEndpointQuery, 'page' | 'perPage'>,
  count: () => Promise<number>,
  fetch: (window: PageWindow) => Promise<StoredEndpoint[]>,
): Promise<StoredEndpointPage> {
  const page = query.page ?? 1;
  const total = await count();
  const offset = query.perPage === undefined ? 0 : (page - 1) * query.perPage;
  const holdsRecords = total > offset && (query.perPage !== undefined || page === 1);
  const records = holdsRecords ? await fetch({ offset, limit: query.perPage }) : [];
  return { ...pageOf(records, total, query), page };
}

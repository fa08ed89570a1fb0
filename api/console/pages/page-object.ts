/**
 * The page object (`ctx.render`; docs/accounts-and-console.md "Console"): what
 * a page is made of, answered as JSON to JSON clients and client-side visits, and handed to the
 * page's template for browsers.
 *
 * | Member | What |
 * |---|---|
 * | `page` | the page's name (its template under api/console/views/) |
 * | `data` | the result of the page's GraphQL query; a page without a query: its props |
 * | `props` | the page's own values beside a query's result (filters, forms, a notice) |
 * | `user` | who is signed in (null: nobody) |
 * | `paths` | the paths the page links to (sign-out, GraphQL, the console's) |
 * | `csrfToken` | the token its forms send back |
 * | `errors` | what went wrong: the query's GraphQL errors, or a refused form (absent: nothing) |
 * | `graphql` | `{endpoint, query, variables}`, so a client can run the query again |
 * | `_links` | `self`, and the actions the principal may take (filtered by role like the HAL API's) |
 */
import type { GraphQLError } from 'graphql';
import type { Links } from '../../hal/links.ts';
import { PROTOCOL_CODES } from '../../graphql/protocol-codes.ts';

/** One error shown on a page: a GraphQL error's message and extensions, or a refused form's. */
export interface PageError {
  message: string;
  code?: string;
  status?: number;
  /** The GraphQL path of the failed field. */
  path?: readonly (string | number)[];
  data?: unknown;
}

export interface PageObject {
  page: string;
  data: unknown;
  props?: Record<string, unknown>;
  user: Record<string, unknown> | null;
  paths: Record<string, string | null>;
  csrfToken: string;
  errors?: PageError[];
  graphql?: { endpoint: string | null; query: string; variables: Record<string, unknown> | null };
  _links: Links;
}

/** GraphQL errors as a page shows them. */
export function pageErrors(errors: readonly GraphQLError[] | undefined): PageError[] | undefined {
  if (!errors || errors.length === 0) return undefined;
  return errors.map((error) => {
    const extensions = error.extensions ?? {};
    return {
      message: error.message,
      ...(typeof extensions.code === 'string' ? { code: extensions.code } : {}),
      ...(typeof extensions.status === 'number' ? { status: extensions.status } : {}),
      ...(error.path ? { path: error.path } : {}),
      ...(extensions.data === undefined ? {} : { data: extensions.data }),
    };
  });
}

/**
 * The status of a page whose query failed somewhere: a root field refused as a client error
 * (its record is out of reach: 404; a refused filter: 422…) or the database unreachable (503)
 * gives its status; anything else (a nested field, an unexpected error) leaves the page 200 with
 * the errors shown: a page never answers 500 for its query.
 */
export function pageStatus(errors: readonly PageError[] | undefined, noData = false): number {
  // the whole query refused (a variable of the wrong form, a syntax error): the request's fault
  if (
    noData &&
    errors &&
    errors.length > 0 &&
    errors.every((error) => error.status === undefined && (error.code === undefined || PROTOCOL_CODES.has(error.code)))
  )
    return 400;
  let status = 200;
  for (const error of errors ?? []) {
    const rootField = error.path === undefined || error.path.length <= 1;
    if (rootField && error.status !== undefined && (error.status < 500 || error.status === 503))
      status = Math.max(status, error.status);
  }
  return status;
}

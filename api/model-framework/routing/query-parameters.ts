/**
 * The query parameters an action accepts, declared with the action (`acceptsQuery`), and the
 * refusal of any other: a misspelt filter (`?stauts=dead`, `?owner[]=acme`) answered as if it
 * were absent would hand the caller every record while it believes it got a filtered list.
 * Nothing is accepted everywhere: `page` and `per_page` belong to the actions that answer a page,
 * the API version is asked for in `Accept`, never in the query, and there is no cache-buster
 * (every JSON answer has an `ETag`, and authenticated ones `Cache-Control: no-store`).
 *
 * The generic controller and the product's APIs (webhooks, tokens) declare every action; a
 * hand-written action that declares nothing is not checked (it may read what it likes). The
 * declaration also gives the OpenAPI description its query parameters (api/openapi/paths.ts).
 */
import { unprocessable } from '../../../shared/errors/app-error.ts';
import type { Action } from './controller.ts';

/** The parameters of a listing's page window (api/hal/pagination.ts). */
export const PAGING_PARAMETERS = ['page', 'per_page'] as const;

/** What an action reads of the query string. */
export interface AcceptedQuery<P extends string = string> {
  /** Its own parameters (filters, options), in the order its paging links repeat them. */
  readonly parameters: readonly P[];
  /** It answers a page: `page` and `per_page` are accepted too. */
  readonly paged: boolean;
}

/** The query of an action that declared `P`: one value, several (a repeated parameter), or none per name. */
export type Query<P extends string> = { readonly [K in P]: string | string[] | undefined };

/** Every parameter an action accepts: its own, then the paging ones when it answers a page. */
export function acceptedNames(accepted: AcceptedQuery): readonly string[] {
  return accepted.paged ? [...accepted.parameters, ...PAGING_PARAMETERS] : accepted.parameters;
}

/**
 * 422 `APP_QUERY_PARAMETER_UNKNOWN` for the first parameter of `query` (in the order given) the
 * action does not accept, named as the client wrote it (`owner[]`, `owner[0]`), with the list
 * of those it does accept (`data.accepted`); undefined when every one is accepted.
 */
export function unknownParameter(query: Readonly<Record<string, unknown>>, accepted: AcceptedQuery) {
  const names = acceptedNames(accepted);
  const unknown = Object.keys(query).filter((name) => !names.includes(name));
  if (unknown.length === 0) return undefined;
  const others =
    unknown.length > 1
      ? ` (and ${unknown
          .slice(1)
          .map((name) => JSON.stringify(name))
          .join(', ')})`
      : '';
  const accepts = names.length > 0 ? `this route accepts ${names.join(', ')}` : 'this route accepts no query parameter';
  return unprocessable(`unknown query parameter ${JSON.stringify(unknown[0])}${others}; ${accepts}`, {
    code: 'APP_QUERY_PARAMETER_UNKNOWN',
    data: { parameter: unknown[0], accepted: [...names] },
  });
}

const DECLARED = new WeakMap<Action, AcceptedQuery>();

/**
 * `action` refusing any query parameter outside `accepted` before it runs (after the route's
 * guards: an anonymous caller still gets its 401 first). The declaration stays readable with
 * `declaredQuery` for the OpenAPI description and the tests.
 */
export function acceptsQuery(accepted: AcceptedQuery, action: Action): Action {
  const checked: Action = (ctx) => {
    const refusal = unknownParameter(ctx.query, accepted);
    if (refusal) throw refusal;
    ctx.state.acceptedQuery = accepted; // `ctx.collection` keeps these on its paging links
    return action(ctx);
  };
  DECLARED.set(checked, accepted);
  return checked;
}

/** What `action` declared with `acceptsQuery`; undefined for an action that declared nothing. */
export const declaredQuery = (action: Action): AcceptedQuery | undefined => DECLARED.get(action);

/**
 * Content negotiation, for the controller helpers and every JSON answer.
 */

/** The media types `negotiate()` answers with JSON. */
export const JSON_MEDIA_TYPES = ['application/json', 'application/hal+json', 'application/vnd.app.v1+json'] as const;

/** `ctx.accepts` (Koa): the best of the offered types for the request's `Accept`, or false. */
export type Accepts = (...types: string[]) => string | false;

/**
 * `html` for browsers and for `*\/*` (and for no `Accept` at all); `json` when the client
 * prefers one of the JSON media types; false when it accepts neither.
 */
export function representation(accepts: Accepts): 'html' | 'json' | false {
  const best = accepts('html', ...JSON_MEDIA_TYPES);
  if (best === false) return false;
  return best === 'html' ? 'html' : 'json';
}

/** The content type of a JSON answer: `application/hal+json` when the client prefers it, else `application/json`. */
export function jsonContentType(accepts: Accepts): 'application/hal+json' | 'application/json' {
  return accepts('application/json', 'application/hal+json') === 'application/hal+json'
    ? 'application/hal+json'
    : 'application/json';
}

/**
 * The header of a client-side page visit: a script of the page asking for the page
 * object of a route that answers HTML to browsers sends `X-App-Page: true`, and gets the JSON
 * page object whatever its `Accept` says (answers vary on it).
 */
export const PAGE_VISIT_HEADER = 'X-App-Page';

/** What the request wants of a page: its page object (JSON clients, client-side visits), HTML, or neither (406). */
export function pageRepresentation(request: { get(name: string): string; accepts: Accepts }): 'html' | 'json' | false {
  if (/^(true|1)$/i.test(request.get(PAGE_VISIT_HEADER))) return 'json';
  return representation(request.accepts);
}

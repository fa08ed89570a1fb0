/**
 * Content negotiation (spec: "Controller helpers", "Common response behaviour").
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
  return accepts('application/json', 'application/hal+json') === 'application/hal+json' ? 'application/hal+json' : 'application/json';
}

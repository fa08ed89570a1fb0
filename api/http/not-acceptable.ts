/**
 * The 406 answers, each with its stable code and what the client could ask for instead: a route
 * declared with a version that the client asked another version of (`APP_VERSION_NOT_ACCEPTABLE`),
 * and a request whose `Accept` admits none of the media types the path answers with
 * (`APP_NOT_ACCEPTABLE`). Two codes because the remedies differ: ask for the route's version (or
 * none), or accept one of the listed media types.
 */
import { notAcceptable, type AppError } from '../../shared/errors/app-error.ts';
import { clip } from '../../shared/errors/describe-value.ts';

export const VERSION_NOT_ACCEPTABLE = 'APP_VERSION_NOT_ACCEPTABLE';
export const MEDIA_TYPE_NOT_ACCEPTABLE = 'APP_NOT_ACCEPTABLE';

/** Longest `Accept` repeated in the answer. */
const MAX_ECHO = 200;

/** The versioned media type of an API version: `application/vnd.app.v1+json` for `v1`. */
export const versionedMediaType = (version: string): string => `application/vnd.app.${version}+json`;

/**
 * 406 for a route serving `version` to a client that asked for `requested` and does not accept
 * `version`; `data.mediaTypes` are the types the route would answer (its version's, or none named).
 */
export function versionNotAcceptable(version: string, requested: string | null): AppError {
  const asked = requested === null ? `its Accept refuses ${version} (q=0)` : `the request asked for ${requested}`;
  return notAcceptable(`this route serves API version ${version}; ${asked}`, {
    code: VERSION_NOT_ACCEPTABLE,
    data: {
      version,
      requested,
      mediaTypes: [versionedMediaType(version), 'application/hal+json', 'application/json'],
    },
  });
}

/** 406 for `what` (a path, an endpoint), answered in `mediaTypes`, to a request whose `Accept` admits none of them. */
export function mediaTypeNotAcceptable(
  what: string,
  accept: string,
  mediaTypes: readonly string[],
  options: { headers?: Record<string, string> } = {},
): AppError {
  return notAcceptable(`no representation of ${what} matches Accept: ${clip(accept, MAX_ECHO) || '(none)'}`, {
    code: MEDIA_TYPE_NOT_ACCEPTABLE,
    data: { accept: clip(accept, MAX_ECHO), mediaTypes: [...mediaTypes] },
    headers: options.headers,
  });
}

/**
 * An endpoint whose header values the core has decided on, apart from the store so that what
 * only shows an endpoint (the CLI's printing) loads no database code.
 */
import { maskHeaders } from './header-box.ts';
import type { Endpoint } from './store.ts';

/** What marks an endpoint whose header values the core has decided on (a type alone, never a value). */
declare const HEADERS_DECIDED: unique symbol;

/**
 * An endpoint as the core answers a reader: header values null unless the reader may reveal them
 * and asked to (show.ts `headerValuesShown`), a change's answer with its values hidden
 * ({@link maskedEndpoint}). The public shapes take only these, so no face decides on header values.
 */
export type ShownEndpoint = Omit<Endpoint, 'headers'> & {
  headers: Record<string, string | null>;
  readonly [HEADERS_DECIDED]: true;
};

/**
 * `endpoint` with its header values hidden (null) and the names of `headers` (default its own)
 * kept: a change's answer as every face shows it.
 */
export const maskedEndpoint = (endpoint: Endpoint, headers: Record<string, string> = endpoint.headers): ShownEndpoint =>
  ({ ...endpoint, headers: maskHeaders(headers) }) as unknown as ShownEndpoint;

import { isAppError } from '../shared/errors/app-error.ts';
import { pgErrorToAppError } from '../shared/errors/pg-errors.ts';
import { isConnectionError } from '../shared/db/connection-errors.ts';
import { clip } from '../shared/errors/describe-value.ts';
import { boundedData, MAX_DETAIL } from './http/bounded-data.ts';

export interface Problem {
  status: number;
  detail: string;
  code?: string;
  data?: Record<string, unknown>;
  headers: Record<string, string>;
}

/** Seconds a client is told to wait when the database is away (the pools reconnect within a second of its return). */
export const DATABASE_RETRY_AFTER = '2';

/**
 * Turns anything thrown into what the client may see. A database that cannot be reached is a
 * 503 `APP_DATABASE_UNAVAILABLE` with `Retry-After`; unknown errors are 500s without detail.
 * What echoes the client's input is bounded (http/bounded-data.ts).
 */
export function problemFrom(error: unknown, options: { exposeInternals: boolean }): Problem {
  if (!isAppError(error) && isConnectionError(error)) {
    return {
      status: 503,
      detail: 'the database cannot be reached right now; try again shortly',
      code: 'APP_DATABASE_UNAVAILABLE',
      headers: { 'Retry-After': DATABASE_RETRY_AFTER },
    };
  }
  const known = isAppError(error) ? error : pgErrorToAppError(error);
  if (known) {
    return {
      status: known.status,
      detail: known.expose || options.exposeInternals ? clip(known.message, MAX_DETAIL) : 'Internal Server Error',
      code: known.code,
      data: known.expose && known.data !== undefined ? (boundedData(known.data) as Record<string, unknown>) : undefined,
      headers: known.headers ?? {},
    };
  }
  // errors from Koa and its body parsers carry status and expose (http-errors)
  const httpError = error as {
    status?: unknown;
    expose?: unknown;
    message?: unknown;
    headers?: Record<string, string>;
  };
  if (typeof httpError?.status === 'number' && httpError.status >= 400 && httpError.status < 600) {
    const exposed = httpError.expose === true || options.exposeInternals;
    return {
      status: httpError.status,
      detail: exposed ? String(httpError.message) : 'Internal Server Error',
      headers: httpError.headers ?? {},
    };
  }
  return {
    status: 500,
    detail: options.exposeInternals && error instanceof Error ? error.message : 'Internal Server Error',
    headers: {},
  };
}

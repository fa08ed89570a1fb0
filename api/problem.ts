import { isAppError } from '../shared/errors/app-error.ts';
import { pgErrorToAppError } from '../shared/errors/pg-errors.ts';
import { pgRefusal } from '../shared/errors/pg-refusals.ts';
import { isConnectionError } from '../shared/db/connection-errors.ts';
import { clip } from '../shared/errors/describe-value.ts';
import { boundedData, MAX_DETAIL } from './http/bounded-data.ts';

export interface Problem {
  status: number;
  detail: string;
  code?: string;
  data?: Record<string, unknown>;
  headers: Record<string, string>;
  /**
   * The database could not serve the request now (unreachable, or a refusal that passes: read-only,
   * out of resources, a lock or time limit): a retry may succeed. Shown to clients as it is, and
   * logged in one line without a stack.
   */
  transient?: true;
  /** The service means the client to see it (an AppError's `expose`, a mapped PostgreSQL error's included). */
  exposed?: true;
}

/** Seconds a client is told to wait when the database is away (the pools reconnect within a second of its return). */
export const DATABASE_RETRY_AFTER = '2';

/**
 * Turns anything thrown into what the client may see. A database that cannot be reached is a
 * 503 `APP_DATABASE_UNAVAILABLE` with `Retry-After`, and so is one that refuses the work for now
 * (shared/errors/pg-refusals.ts: `APP_DATABASE_READ_ONLY`, `APP_DATABASE_BUSY`, or out of
 * resources); unknown errors are 500s without detail.
 * What echoes the client's input is bounded (http/bounded-data.ts).
 */
export function problemFrom(error: unknown, options: { exposeInternals: boolean }): Problem {
  if (!isAppError(error) && isConnectionError(error)) {
    return {
      status: 503,
      detail: 'the database cannot be reached right now; try again shortly',
      code: 'APP_DATABASE_UNAVAILABLE',
      headers: { 'Retry-After': DATABASE_RETRY_AFTER },
      transient: true,
    };
  }
  const refusal = pgRefusal(error);
  if (refusal) {
    return {
      status: 503,
      detail: refusal.detail,
      code: refusal.code,
      headers: { 'Retry-After': refusal.retryAfter },
      transient: true,
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
      ...(known.expose ? { exposed: true as const } : {}),
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

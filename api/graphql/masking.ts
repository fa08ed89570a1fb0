/**
 * What a client may see of a failed field (the GraphQL side of api/problem.ts). Errors the
 * service raises on purpose keep their message and carry their code; everything else is a bug
 * and, outside development, becomes "Unexpected error." with the request id, the real error
 * going to the log only.
 *
 * | Error                                                    | message              | extensions                         |
 * |----------------------------------------------------------|----------------------|------------------------------------|
 * | GraphQL's own (syntax, validation, variable coercion)    | kept                 | kept (their `code`: protocol-codes.ts) |
 * | AppError or mapped PostgreSQL error, status < 500        | kept                 | `code`, `status`, `data`           |
 * | the database unreachable, or refusing for now (503)      | kept                 | `code` (`APP_DATABASE_*`), `status` |
 * | an AppError meant for clients, 5xx (`expose`: a store away) | kept               | `code`, `status`, `data`           |
 * | a PostgreSQL error mapped for clients, 5xx (not migrated) | kept                | `code`, `status`, `data`           |
 * | anything else (a thrown Error, a 5xx, a null for `T!`)   | "Unexpected error."  | `code: APP_GRAPHQL_INTERNAL`, `requestId` |
 *
 * In development the third row keeps its message (like `exposeInternals` for REST).
 */
import { GraphQLError, type ExecutionResult } from 'graphql';
import type { Logger } from '../../shared/log/logger.ts';
import { isAppError } from '../../shared/errors/app-error.ts';
import { problemFrom } from '../problem.ts';
import { logTransient } from '../http/transient-log.ts';

export const UNEXPECTED = 'Unexpected error.';
export const INTERNAL_CODE = 'APP_GRAPHQL_INTERNAL';

export interface MaskOptions {
  /** Show internal messages (development). */
  exposeInternals: boolean;
  requestId?: string;
  log: Logger;
}

/** One error as the client sees it. */
export function maskError(error: GraphQLError, options: MaskOptions): GraphQLError {
  const original = error.originalError;
  // GraphQL's own refusals, and errors a resolver raised as GraphQLErrors on purpose
  if (!original || original instanceof GraphQLError) return error;
  const problem = problemFrom(original, { exposeInternals: options.exposeInternals });
  const rebuild = (message: string, extensions: Record<string, unknown>) =>
    new GraphQLError(message, {
      nodes: error.nodes,
      source: error.source,
      positions: error.positions,
      path: error.path,
      originalError: original,
      extensions,
    });
  // as for REST (api/middleware/errors.ts), an AppError meant for clients is a deliberate answer, not a bug
  const deliberate = isAppError(original) && original.expose;
  if (problem.status < 500 || problem.transient || problem.exposed) {
    if (problem.transient) logTransient(options.log, original);
    // a 5xx the service maps for clients (a database not migrated) is still the operator's to see
    else if (problem.status >= 500 && !deliberate)
      options.log.error({ err: original, path: error.path }, 'graphql field failed');
    else options.log.debug({ err: original, path: error.path }, 'graphql field refused');
    return rebuild(problem.detail, {
      ...(problem.code ? { code: problem.code } : {}),
      status: problem.status,
      ...(problem.data ? { data: problem.data } : {}),
    });
  }
  options.log.error({ err: original, path: error.path }, 'graphql field failed');
  return rebuild(options.exposeInternals ? original.message : UNEXPECTED, {
    code: INTERNAL_CODE,
    requestId: options.requestId,
  });
}

/** The result with every error masked (the data is untouched). */
export function maskResult<T extends ExecutionResult>(result: T, options: MaskOptions): T {
  if (!result.errors || result.errors.length === 0) return result;
  return { ...result, errors: result.errors.map((error) => maskError(error, options)) };
}

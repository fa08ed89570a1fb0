import { STATUS_CODES } from 'node:http';
import type { Context, Middleware } from 'koa';
import type { Config } from '../../shared/config/index.ts';
import type { Logger } from '../../shared/log/logger.ts';
import { isAppError } from '../../shared/errors/app-error.ts';
import { problemFrom } from '../problem.ts';
import { weakEtag } from './json-answers.ts';
import { logTransient } from '../http/transient-log.ts';

/**
 * The one place errors become answers: RFC 9457 `application/problem+json` with the stable
 * `code`, `data` and the request id. 5xx details never leave the server outside development.
 * Where a face answers browsers with pages (the console), `page` may answer the problem just
 * written as one (api/console/error-page.ts).
 * (Koa wraps downstream in this middleware, so it sits near the top of the stack; in an
 * Express-style list the error handler would be the last element.)
 */
export function errors(options: ProblemOptions): Middleware {
  return async function errors(ctx, next) {
    try {
      await next();
    } catch (error) {
      writeProblem(ctx, error, options);
      if (options.page && !ctx.headerSent && ctx.status >= 400) await options.page(ctx);
    }
  };
}

/** What `writeProblem` leaves on `ctx.state` for the metrics: the code of the problem written (null: none). */
export interface ProblemState {
  problemCode?: string | null;
}

/** How problems are written: the process's log, and whether a 5xx shows its details (development). */
export interface ProblemOptions {
  log: Logger;
  exposeInternals: boolean;
  /**
   * Answers the problem just written (problem+json in `ctx.body`) as a page when the request is
   * one a face answers with pages, else leaves it (set once that face is made).
   */
  page?: (ctx: Context) => Promise<void>;
}

/** The web process's {@link ProblemOptions}: a 5xx shows its details in development alone. */
export const problemOptions = (config: Pick<Config, 'env'>, log: Logger): ProblemOptions => ({
  log,
  exposeInternals: config.env === 'development',
});

/**
 * Makes `error` the answer of `ctx` (logged as its kind deserves), unless the answer has gone out
 * already: what the `errors` middleware does with whatever the stack throws, and what a layer
 * that keeps answers (idempotency keys) does with a refusal it stores.
 */
export function writeProblem(ctx: Context, error: unknown, options: ProblemOptions): void {
  const problem = problemFrom(error, { exposeInternals: options.exposeInternals });
  // a failure is logged with its stack; a deliberate refusal (any AppError meant for the
  // client, a 501 for an unknown method included) is not: a client cannot flood the log
  const deliberate = problem.status < 500 || (isAppError(error) && error.expose);
  if (deliberate) options.log.debug({ err: error, status: problem.status }, 'request refused');
  else if (problem.transient) logTransient(options.log, error);
  else options.log.error({ err: error, status: problem.status }, 'request failed');
  if (ctx.headerSent || !ctx.writable) return;
  ctx.status = problem.status;
  // counted by http-metrics.ts with the status the answer goes out with
  (ctx.state as ProblemState).problemCode = problem.code ?? null;
  for (const [name, value] of Object.entries(problem.headers)) ctx.set(name, value);
  ctx.set('Cache-Control', 'no-store');
  ctx.type = 'application/problem+json';
  const answer = (data: Record<string, unknown> | undefined) =>
    JSON.stringify({
      type: 'about:blank',
      title: STATUS_CODES[problem.status] ?? 'Error',
      status: problem.status,
      detail: problem.detail,
      ...(problem.code ? { code: problem.code } : {}),
      ...(data ? { data } : {}),
      requestId: ctx.state.requestId,
    });
  let body: string;
  try {
    body = answer(problem.data);
  } catch (serialising) {
    // data that cannot be written as JSON (a BigInt, a cycle): the answer goes without it
    options.log.warn(
      { err: serialising, code: problem.code },
      'problem data left out of the answer: it cannot be serialised',
    );
    body = answer(undefined);
  }
  ctx.set('ETag', weakEtag('application/problem+json', body)); // every JSON answer has a weak ETag
  ctx.body = body;
}

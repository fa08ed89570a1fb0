import { STATUS_CODES } from 'node:http';
import type { Context, Middleware } from 'koa';
import type { Config } from '../../shared/config/index.ts';
import type { Logger } from '../../shared/log/logger.ts';
import { isAppError } from '../../shared/errors/app-error.ts';
import { problemFrom } from '../problem.ts';
import { weakEtag } from './json-answers.ts';
import { logConfigurationProblem } from '../../shared/db/configuration-problem-log.ts';
import { renderPage, type RenderDeps } from '../console/pages/render.ts';
import { PAGE_VISIT_HEADER, pageRepresentation } from '../model-framework/routing/negotiate.ts';

/**
 * The one place errors become answers: RFC 9457 `application/problem+json` with the stable
 * `code`, `data` and the request id. 5xx details never leave the server outside development.
 * A browser on a console path gets the same problem as the console's error page (its message,
 * code and a link back) rendered by the console's page renderer.
 * (Koa wraps downstream in this middleware, so it sits near the top of the stack; in an
 * Express-style list the error handler would be the last element.)
 */
export function errors(options: ProblemOptions): Middleware {
  return async function errors(ctx, next) {
    try {
      await next();
    } catch (error) {
      writeProblem(ctx, error, options);
      if (options.pages && !ctx.headerSent && ctx.status >= 400 && wantsConsolePage(ctx))
        await answerPage(ctx, options.pages);
    }
  };
}

/** How problems are written: the process's log, and whether a 5xx shows its details (development). */
export interface ProblemOptions {
  log: Logger;
  exposeInternals: boolean;
  /** The console's page renderer: a browser on a console path gets the problem as a page (set once it is made). */
  pages?: RenderDeps;
}

/**
 * Whether the problem is answered as a console page: a browser (it asks for `text/html` and
 * prefers it to JSON, sends no JSON body and is no client-side page visit) on a console path
 * (not the API's `/api/` nor `/_app/`). Everyone else keeps problem+json.
 */
function wantsConsolePage(ctx: Context): boolean {
  if (ctx.path.startsWith('/api/') || ctx.path.startsWith('/_app/')) return false;
  if (!/\btext\/html\b/.test(ctx.get('Accept')) || ctx.is('json') || ctx.get(PAGE_VISIT_HEADER) === 'true')
    return false;
  return pageRepresentation({ get: (name) => ctx.get(name), accepts: (...types) => ctx.accepts(...types) }) === 'html';
}

/**
 * The problem just written, as the console's error page (its message and code, a link back): the
 * same status and headers, rendered by the console's page renderer; should rendering fail, the
 * problem+json stays the answer.
 */
async function answerPage(ctx: Context, pages: RenderDeps): Promise<void> {
  const problem = JSON.parse(String(ctx.body)) as { status: number; title: string; detail: string; code?: string };
  const referer = ctx.get('Referer');
  const back = referer && safeBack(ctx, referer);
  try {
    await renderPage(
      ctx,
      pages,
      'error',
      {
        status: problem.status,
        title: problem.title,
        back: back || '/',
        form: ctx.method !== 'GET' && ctx.method !== 'HEAD',
      },
      {
        status: problem.status,
        errors: [{ message: problem.detail, status: problem.status, ...(problem.code ? { code: problem.code } : {}) }],
      },
    );
    ctx.remove('ETag');
  } catch {
    ctx.status = problem.status; // the problem+json written before stays
  }
}

/** The page a link back leads to: the Referer when it is this site's (its path and query), else none. */
function safeBack(ctx: Context, referer: string): string | undefined {
  try {
    const url = new URL(referer);
    return url.origin === ctx.origin && url.pathname + url.search !== ctx.originalUrl
      ? url.pathname + url.search
      : undefined;
  } catch {
    return undefined;
  }
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
  else if (problem.code === 'APP_DATABASE_UNAVAILABLE') logDatabaseUnavailable(options.log, error);
  else options.log.error({ err: error, status: problem.status }, 'request failed');
  if (ctx.headerSent || !ctx.writable) return;
  ctx.status = problem.status;
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

/**
 * A request refused because the database cannot be reached: one line without a stack (an outage
 * fails every request alike); a configuration the server refuses is named once, at error level.
 */
function logDatabaseUnavailable(log: Logger, error: unknown): void {
  if (logConfigurationProblem(log, error)) return;
  log.warn({ status: 503, reason: (error as Error).message }, 'request refused: the database cannot be reached');
}

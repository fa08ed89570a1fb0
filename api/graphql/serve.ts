/**
 * The Koa adapter of the GraphQL path (`graphql.path`, default `/_app/gql`): it only
 * translates between Koa and the server-agnostic handler (handler.ts). It sits in the
 * `graphql` slot, where a route would: after the request id, timeout, secure headers, body
 * parsers, the `user` slot (the principal) and the limiters; mutations pass through the route
 * slots of a pseudo-route `POST <path>` (the idempotency middleware among them), so
 * `Idempotency-Key` works as on REST mutations.
 *
 * | Situation                                   | Answer                                                         |
 * |---------------------------------------------|----------------------------------------------------------------|
 * | another path                                | passed on                                                      |
 * | service off (schema does not compile)       | 503 problem+json `APP_GRAPHQL_UNAVAILABLE`, saying why          |
 * | method other than GET/POST                  | 405 problem+json `APP_METHOD_NOT_ALLOWED`, `Allow: GET, POST`  |
 * | mutation over GET                           | 405 problem+json `APP_METHOD_NOT_ALLOWED`, `Allow: POST`       |
 * | POST that is not `application/json`         | 415 problem+json `APP_GRAPHQL_MEDIA_TYPE_UNSUPPORTED`          |
 * | `Accept` allows neither GraphQL media type  | 406 problem+json `APP_NOT_ACCEPTABLE`, the two in `data`       |
 * | anything else                               | graphql-http's answer                                          |
 */
import type { Context, Middleware } from 'koa';
import { AppError, unavailable } from '../../shared/errors/app-error.ts';
import type { ResponseInit } from 'graphql-http';
import type { GraphqlService } from './service.ts';
import { GRAPHQL_UNAVAILABLE } from './service.ts';
import { mediaTypeNotAcceptable } from '../http/not-acceptable.ts';

export const MEDIA_TYPE_UNSUPPORTED = 'APP_GRAPHQL_MEDIA_TYPE_UNSUPPORTED';

export interface ServeOptions {
  path: string;
  /** The service; undefined until the web process has built it (at start). */
  service: () => GraphqlService | undefined;
  /** The route slots of the pseudo-route `POST <path>` (api/pipeline.ts `routeStage`). */
  routeStage: Middleware;
}

/**
 * graphql-http's protocol refusals, as problems the error middleware renders: the answers it
 * gives without a body, and its 405 for a mutation over GET (whose GraphQL-style body it sends
 * as text/plain) — a 405 is a method refusal like any other: `APP_METHOD_NOT_ALLOWED`, `Allow`.
 */
function protocolRefusal(ctx: Context, init: ResponseInit): AppError {
  const headers = Object.fromEntries(Object.entries(init.headers ?? {}).filter(([name]) => name !== 'content-type'));
  if (init.status === 405) {
    const allow = headers.allow ?? 'GET, POST';
    const detail =
      allow === 'POST'
        ? 'a mutation cannot run over GET on the GraphQL endpoint; send it with POST'
        : `${ctx.method} is not allowed on the GraphQL endpoint; use GET or POST`;
    return new AppError(405, detail, {
      code: 'APP_METHOD_NOT_ALLOWED',
      headers: { Allow: allow },
      data: { allow: allow.split(/,\s*/) },
    });
  }
  if (init.status === 415) {
    return new AppError(415, 'a GraphQL POST carries its request as Content-Type: application/json', {
      code: MEDIA_TYPE_UNSUPPORTED,
    });
  }
  if (init.status === 406) {
    return mediaTypeNotAcceptable(
      ctx.path,
      ctx.get('Accept'),
      ['application/graphql-response+json', 'application/json'],
      {
        headers,
      },
    );
  }
  return new AppError(init.status, init.statusText, { headers });
}

async function answer(ctx: Context, service: GraphqlService): Promise<void> {
  const handler = service.handler;
  if (!handler) return;
  const [body, init] = await handler({
    url: ctx.url,
    method: ctx.method,
    headers: ctx.headers,
    // the body parsers have read JSON bodies already; a GET has none
    body: () => ((ctx.request as { body?: unknown }).body ?? null) as Record<string, unknown> | null,
    raw: ctx,
    context: {
      principal: ctx.state.principal,
      requestId: ctx.state.requestId,
      signal: ctx.state.signal,
    },
  });
  if (body === null || init.status === 405) throw protocolRefusal(ctx, init);
  ctx.body = body;
  ctx.status = init.status;
  for (const [name, value] of Object.entries(init.headers ?? {})) ctx.set(name, value);
}

/** Whether `Idempotency-Key` applies: a POSTed mutation carrying the header. */
function isKeyedMutation(ctx: Context, service: GraphqlService): boolean {
  if (ctx.method !== 'POST' || ctx.get('Idempotency-Key') === '') return false;
  const body = (ctx.request as { body?: unknown }).body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  return service.operationType(body as Record<string, unknown>) === 'mutation';
}

/** The middleware of the `graphql` slot. */
export function serveGraphql(options: ServeOptions): Middleware {
  return async function graphql(ctx, next) {
    if (ctx.path !== options.path) return next();
    const service = options.service();
    if (!service?.handler) {
      const reason = service?.reason ?? 'it is starting';
      throw unavailable(`the GraphQL service is off: ${reason}`, {
        code: GRAPHQL_UNAVAILABLE,
        expose: true,
        data: { reason, sources: service?.sources ?? [] },
      });
    }
    if (isKeyedMutation(ctx, service)) await options.routeStage(ctx, () => answer(ctx, service));
    else await answer(ctx, service);
  };
}

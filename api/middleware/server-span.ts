import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Middleware } from 'koa';
import { tracer } from '../../shared/telemetry/tracer.ts';
import { routeLabel } from './http-metrics.ts';

/**
 * The server span of every request, mounted only while the web process traces
 * (shared/telemetry/start.ts): a client's `traceparent` (the SDK's propagators, W3C trace
 * context by default) makes it the parent, so an emit joins the client's trace. Named
 * `<method> <route>` after the route template (as the metrics label it: a fixed path or
 * `unmatched`, never a raw path, which may hold a token); it records the method, the route, the
 * status and the request id, never a header, a query or a body. A 5xx answer is an error.
 */
export function serverSpan(options: { fixedPaths: readonly string[] }): Middleware {
  const fixed = new Set(options.fixedPaths);
  return async function serverSpan(ctx, next) {
    const parent = propagation.extract(ROOT_CONTEXT, ctx.headers);
    const span = tracer().startSpan(
      ctx.method,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': ctx.method, 'url.scheme': ctx.protocol },
      },
      parent,
    );
    try {
      await context.with(trace.setSpan(parent, span), next);
    } finally {
      const route = routeLabel(ctx as unknown as { _matchedRoute?: unknown; path: string }, fixed);
      span.updateName(`${ctx.method} ${route}`);
      span.setAttribute('http.route', route);
      span.setAttribute('http.response.status_code', ctx.status);
      const requestId = (ctx.state as { requestId?: unknown }).requestId;
      if (typeof requestId === 'string') span.setAttribute('app.request.id', requestId);
      if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  };
}

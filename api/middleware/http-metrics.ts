import type { Middleware } from 'koa';
import type { Metrics } from '../../shared/metrics/registry.ts';
import type { ProblemState } from './errors.ts';

/** What the route label may be besides a route template: fixed paths, or `unmatched`. */
export function routeLabel(ctx: { _matchedRoute?: unknown; path: string }, fixed: ReadonlySet<string>): string {
  if (typeof ctx._matchedRoute === 'string') return ctx._matchedRoute;
  return fixed.has(ctx.path) ? ctx.path : 'unmatched';
}

/** A problem's code as a label: an `APP_*` code as it is, `none` without one, `other` for a code of another form (bounding the label whatever a deployment's own code throws). */
export function problemCodeLabel(code: string | null): string {
  if (code === null) return 'none';
  return /^APP_[A-Z0-9_]{1,60}$/.test(code) ? code : 'other';
}

/**
 * Counts every answer (`app_http_requests_total{route,method,status}`) and times it
 * (`app_http_request_duration_seconds{route,method}`). The route label is the route template
 * the router matched (`/api/v1/webhooks/:id`), one of the service's fixed paths (health, GraphQL,
 * metrics) or `unmatched`: never a raw path, so the label set stays bounded. Also counts
 * `app_rate_limited_total{limiter}` (the limiter that refused, `ctx.state.rateLimitedBy`),
 * `app_idempotent_replays_total`, and `app_http_problems_total{code,status}`, the problem answers
 * by the code errors.ts wrote (`ctx.state.problemCode`), so a 503 says whether the database was
 * unavailable, read-only or busy, or the request timed out. Sits right under the request id, so errors are counted with
 * the status they were rendered with.
 */
export function httpMetrics(options: { metrics: Metrics; fixedPaths: readonly string[] }): Middleware {
  const { metrics } = options;
  const fixed = new Set(options.fixedPaths);
  const methods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
  return async function httpMetrics(ctx, next) {
    const started = performance.now();
    try {
      await next();
    } finally {
      const route = routeLabel(ctx as unknown as { _matchedRoute?: unknown; path: string }, fixed);
      const method = methods.has(ctx.method) ? ctx.method : 'OTHER';
      metrics.httpRequests.inc({ route, method, status: String(ctx.status) });
      metrics.httpDuration.observe({ route, method }, (performance.now() - started) / 1000);
      const limiter = (ctx.state as { rateLimitedBy?: string }).rateLimitedBy;
      if (ctx.status === 429 && limiter) metrics.rateLimited.inc({ limiter });
      if (ctx.response.get('Idempotency-Replayed') === 'true') metrics.idempotentReplays.inc();
      const { problemCode } = ctx.state as ProblemState;
      if (problemCode !== undefined && ctx.status >= 400)
        metrics.httpProblems.inc({ code: problemCodeLabel(problemCode), status: String(ctx.status) });
    }
  };
}

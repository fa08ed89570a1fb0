import type { Middleware } from 'koa';
import type { Logger } from '../../shared/log/logger.ts';
import { internal } from '../../shared/errors/app-error.ts';
import type { HalKind } from '../context.ts';
import { PAGE_VISIT_HEADER } from '../model-framework/routing/negotiate.ts';
import type { CompiledRoute } from '../model-framework/routing/table.ts';

/** What each action must answer; destroy may also answer nothing (204). */
const EXPECTED: Record<string, HalKind> = {
  index: 'collection',
  new: 'resource',
  create: 'resource',
  show: 'resource',
  edit: 'resource',
  update: 'resource',
  destroy: 'resource',
};

const isJsonObject = (body: unknown): body is Record<string, unknown> =>
  typeof body === 'object' &&
  body !== null &&
  !Buffer.isBuffer(body) &&
  typeof (body as { pipe?: unknown }).pipe !== 'function';

/** The problem with a route's JSON answer, or undefined when it is HAL of the declared kind. */
export function halProblem(
  action: string,
  body: Record<string, unknown> | unknown[],
  recorded: HalKind | undefined,
): string | undefined {
  if (Array.isArray(body) || !('_links' in body)) return 'without _links';
  const kind =
    recorded ?? (typeof body._embedded === 'object' && typeof body.total === 'number' ? 'collection' : 'resource');
  const expected = EXPECTED[action];
  return expected && kind !== expected ? `a ${kind} where ${action} declares a ${expected}` : undefined;
}

/**
 * HAL guard: resources/crud routes must answer HAL. A
 * successful JSON answer without `_links` is logged once per route; with `config.api.strict`
 * it is refused with 500, as is an answer contrary to the action (a collection from `show`).
 * A page object (`ctx.render`, answered to JSON clients and to client-side visits, `X-App-Page`;
 * `X-Inertia` too) is never checked.
 */
export function halGuard(options: {
  route: CompiledRoute;
  strict: boolean;
  log: Logger;
  warned: Set<string>;
}): Middleware | undefined {
  const { route, strict, log, warned } = options;
  if (route.kind === 'single') return undefined;
  const id = `${route.method} ${route.path}`;
  return async function halGuard(ctx, next) {
    await next();
    if (ctx.state.page || ctx.get(PAGE_VISIT_HEADER) || ctx.get('X-Inertia') || ctx.status < 200 || ctx.status >= 300)
      return;
    const body = ctx.body;
    if (!isJsonObject(body) || (ctx.response.type && !ctx.response.is('json', '+json'))) return;
    const problem = halProblem(route.action, body, ctx.state.hal?.kind);
    if (!problem) return;
    if (strict) throw internal(`${id} (${route.action}) answered JSON ${problem}`);
    if (!warned.has(id)) {
      warned.add(id);
      log.warn({ route: id, action: route.action }, `resource route answered JSON ${problem}`);
    }
  };
}

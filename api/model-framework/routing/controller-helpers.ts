import type { Context, Middleware } from 'koa';
import type { HalKind } from '../../context.ts';
import type { Model } from '../data/model.ts';
import { guardModels } from '../data/guarded-models.ts';
import { keptQuery } from '../../hal/links.ts';
import { presentCollection, presentResource, type Answer, type PresentDeps } from '../../hal/present.ts';
import { negotiate } from '../../console/pages/negotiate.ts';
import { jsonContentType } from './negotiate.ts';
import { permit } from './permit.ts';
import type { CompiledRoute } from './table.ts';

/** Most `Accept` values whose JSON content type a route remembers (clients send a handful). */
const MAX_KNOWN_ACCEPTS = 32;

/** `jsonContentType` of the request's `Accept`, remembered per value (it depends on nothing else). */
function contentTypes(): (ctx: Context) => ReturnType<typeof jsonContentType> {
  const known = new Map<string, ReturnType<typeof jsonContentType>>();
  return (ctx) => {
    const accept = ctx.get('Accept');
    let type = known.get(accept);
    if (type === undefined) {
      type = jsonContentType((...types) => ctx.accepts(...types));
      if (known.size < MAX_KNOWN_ACCEPTS) known.set(accept, type);
    }
    return type;
  };
}

function apply(ctx: Context, answer: Answer, kind: HalKind, contentType: (ctx: Context) => string): void {
  ctx.status = answer.status;
  for (const [name, value] of Object.entries(answer.headers)) ctx.set(name, value);
  ctx.type = contentType(ctx);
  ctx.vary('Accept');
  ctx.state.hal = { kind };
  ctx.body = answer.body;
}

/**
 * The controller helpers of a matched route: `ctx.resource()`,
 * `ctx.collection()`, `ctx.negotiate()`, `ctx.permit()`, plus `ctx.model`, `ctx.models` and
 * `ctx.state.route`. The HAL work is done by api/hal/present.ts; this only reads the request
 * (principal, `Accept`, pagination) and applies the answer. `ctx.model` and `ctx.models` read and
 * write under the request principal's tenant rules (api/model-framework/data/guarded-models.ts).
 */
export function controllerHelpers(options: {
  route: CompiledRoute;
  model: Model | undefined;
  present: PresentDeps;
}): Middleware {
  const { route, model, present } = options;
  const type = route.kind === 'single' ? undefined : route.name;
  const contentType = contentTypes();
  return async function controllerHelpers(ctx, next) {
    ctx.state.route = route;
    ctx.models = guardModels(present.models, () => ctx.state.principal);
    ctx.model = model && ctx.models.get(model.name);
    ctx.resource = async (record, presentOptions = {}) => {
      apply(
        ctx,
        await presentResource(present, { record, type, principal: ctx.state.principal, options: presentOptions }),
        'resource',
        contentType,
      );
    };
    ctx.collection = async (records, presentOptions = {}) => {
      const answer = await presentCollection(present, {
        records,
        type,
        principal: ctx.state.principal,
        path: ctx.path,
        pagination: () => ctx.pagination(),
        kept: keptQuery(ctx.query, ctx.state.acceptedQuery?.parameters ?? []),
        options: presentOptions,
      });
      apply(ctx, answer, 'collection', contentType);
    };
    ctx.permit = (...names) => permit(ctx.request.body, names);
    ctx.negotiate = (handlers) => negotiate(ctx, handlers);
    await next();
  };
}

import { EXTERNAL_ID } from '../data/external-id.ts';
import type { Model, ModelRecord } from '../data/model.ts';
import { authorizeCollection, authorizeRecord, hiddenRecord } from '../data/policy.ts';
import { assertIfMatch } from '../../http/preconditions.ts';
import type { Action, Controller } from './controller.ts';
import { permitOnly } from './permit.ts';
import { acceptsQuery } from './query-parameters.ts';

/** The record the guarded model finds for the caller; 404 for one that is missing or hidden alike. */
async function findOrFail(model: Model, externalId: string): Promise<ModelRecord> {
  const record = EXTERNAL_ID.test(externalId) ? await model.find(externalId) : undefined;
  if (!record) throw hiddenRecord(model, externalId);
  return record;
}

/**
 * The controller of a model without a hand-written one: list, show, create, update, destroy as
 * HAL JSON; `new` answers a template with the declared defaults and `edit` the record (there is
 * no HTML view layer yet, so both answer JSON). Writable fields are the declared ones: a body
 * field the model does not declare is 422 `APP_BODY_FIELD_UNKNOWN` (`permitOnly`), as on the
 * product's own APIs, rather than left out as if the client had not sent it. A write with an
 * `If-Match` other than `*` is 412 `APP_PRECONDITION_FAILED` (api/http/preconditions.ts).
 * A model's `policy` is applied on top of the route's roles (api/model-framework/data/policy.ts): a record the
 * caller may not see is 404, another refused action 403, and a listing holds only what it may
 * see, its `total` counting only that (limited in SQL by `policyScope`, else filtered by the
 * policy). Reads and writes go through `ctx.model`, the model as the request's caller reads and
 * writes it (api/model-framework/data/guarded-models.ts), as a hand-written controller's do: a
 * create or update may reference only records the referenced model's policy lets the caller
 * see, and an update may not leave the record out of the caller's sight. `index` accepts the paging
 * parameters and nothing else in the query; the other actions accept none
 * (query-parameters.ts).
 */
export function genericController(model: Model): Controller {
  const actions = genericActions(model);
  return Object.fromEntries(
    Object.entries(actions).map(([name, action]) => [
      name,
      acceptsQuery({ parameters: [], paged: name === 'index' }, (ctx) => {
        assertIfMatch(ctx);
        return action(ctx);
      }),
    ]),
  );
}

function genericActions(model: Model): Record<string, Action> {
  const writable = model.shape.fields.map((field) => field.name);
  /** `ctx.model`: the route's model guarded for the request's caller, where the read and write rules live. */
  const guarded = (ctx: Parameters<Action>[0]): Model => {
    if (ctx.model?.name !== model.name) throw new Error(`the generic ${model.name} controller runs on its own routes`);
    return ctx.model;
  };
  return {
    async index(ctx) {
      const page = await guarded(ctx).paginate(ctx.pagination());
      await ctx.collection(page.records, {
        page: page.page,
        perPage: page.perPage,
        total: page.total,
        deepestPage: page.deepestPage,
      });
    },
    async new(ctx) {
      await authorizeCollection(model, ctx.state.principal, 'new');
      await ctx.resource(model.template());
    },
    async create(ctx) {
      const record = await guarded(ctx).create(permitOnly(ctx.request.body, writable));
      await ctx.resource(record, { status: 201 });
    },
    async show(ctx) {
      await ctx.resource(await findOrFail(guarded(ctx), ctx.params.externalId));
    },
    async edit(ctx) {
      const record = await findOrFail(guarded(ctx), ctx.params.externalId);
      await authorizeRecord(model, ctx.state.principal, 'edit', record);
      await ctx.resource(record);
    },
    async update(ctx) {
      const externalId = ctx.params.externalId;
      const input = permitOnly(ctx.request.body, writable);
      const record = EXTERNAL_ID.test(externalId) ? await guarded(ctx).update(externalId, input) : undefined;
      if (!record) throw hiddenRecord(model, externalId);
      await ctx.resource(record);
    },
    async destroy(ctx) {
      const externalId = ctx.params.externalId;
      const deleted = EXTERNAL_ID.test(externalId) && (await guarded(ctx).destroy(externalId));
      if (!deleted) throw hiddenRecord(model, externalId);
      ctx.status = 204;
    },
  };
}

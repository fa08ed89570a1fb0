import { notFound } from '../../shared/errors/app-error.ts';
import { EXTERNAL_ID } from '../data/external-id.ts';
import type { Model, ModelRecord } from '../data/model.ts';
import type { Controller } from './controller.ts';

function recordNotFound(model: Model, externalId: string) {
  return notFound(`no ${model.name} has the externalId ${JSON.stringify(externalId)}`, {
    code: 'APP_RECORD_NOT_FOUND',
    data: { model: model.name, externalId },
  });
}

async function findOrFail(model: Model, externalId: string): Promise<ModelRecord> {
  const record = EXTERNAL_ID.test(externalId) ? await model.find(externalId) : undefined;
  if (!record) throw recordNotFound(model, externalId);
  return record;
}

/**
 * The controller of a model without a hand-written one: list, show, create, update, destroy as
 * HAL JSON; `new` answers a template with the declared defaults and `edit` the record (there is
 * no HTML view layer yet, so both answer JSON). Writable fields are the declared ones (permit).
 */
export function genericController(model: Model): Controller {
  const writable = model.shape.fields.map((field) => field.name);
  return {
    async index(ctx) {
      const page = await model.paginate(ctx.pagination());
      await ctx.collection(page.records, { page: page.page, perPage: page.perPage, total: page.total });
    },
    async new(ctx) {
      await ctx.resource(model.template());
    },
    async create(ctx) {
      const record = await model.create(ctx.permit(...writable));
      await ctx.resource(record, { status: 201 });
    },
    async show(ctx) {
      await ctx.resource(await findOrFail(model, ctx.params.externalId));
    },
    async edit(ctx) {
      await ctx.resource(await findOrFail(model, ctx.params.externalId));
    },
    async update(ctx) {
      const externalId = ctx.params.externalId;
      const record = EXTERNAL_ID.test(externalId) ? await model.update(externalId, ctx.permit(...writable)) : undefined;
      if (!record) throw recordNotFound(model, externalId);
      await ctx.resource(record);
    },
    async destroy(ctx) {
      const externalId = ctx.params.externalId;
      const deleted = EXTERNAL_ID.test(externalId) && (await model.destroy(externalId));
      if (!deleted) throw recordNotFound(model, externalId);
      ctx.status = 204;
    },
  };
}

/**
 * The models as one caller's requests reach them (`ctx.model`, `ctx.models`, the `models` of a
 * GraphQL resolver's context): every read and write applies the model's tenant rules for that
 * caller (api/model-framework/data/policy.ts), so no controller or resolver has to remember
 * them, and the generic controller reads and writes through the same models.
 *
 * - `find`: a record the caller may not `show` is no record (undefined, as a missing one).
 * - `findMany`: only the records the caller may `show`.
 * - `paginate`: the policy's `index` (403 `APP_FORBIDDEN`), then only records the caller may
 *   `show`, with a `total` counting only those. With `policyScope` the scope is added to the
 *   query (a `where` asking for another value of a scoped field lists nothing); without it every
 *   matching record is read and the policy keeps those the caller may `show`.
 * - `create`: the policy's `create` on the input (403 `APP_FORBIDDEN`), and each reference must
 *   name a record the caller may `show` (422 `APP_REFERENCE_INVALID`, as one that does not exist).
 * - `update`: a record the caller may not `show` is no record (undefined), the policy's `update`
 *   on the record as it was (403), the same reference rule, and the record as written must still
 *   be one the caller may `show`, inside its `policyScope` (403, undone in the write's
 *   transaction, before its event).
 * - `destroy`: a record the caller may not `show` is no record (false), the policy's `destroy` (403).
 *
 * A model without a policy reads and writes as it is. `asSystem(model)` is the one way around
 * the rules, for a read or write the application makes on its own authority rather than the
 * caller's.
 */
import { EXTERNAL_ID } from './external-id.ts';
import type { Model, ModelRecord, Models, Page } from './model.ts';
import {
  assertReferencesVisible,
  authorizeCollection,
  authorizeRecord,
  policyAllows,
  staysVisible,
  visibleRecords,
} from './policy.ts';
import type { PolicyPrincipal } from './types.ts';
import { checkInput } from './values.ts';

/** The caller whose rules apply, read at each read and write (the request's principal, or none). */
export type Caller = () => PolicyPrincipal | undefined;

const systemModels = new WeakMap<Model, Model>();

/**
 * The model without the caller's rules: its reads and writes are the application's own, as a
 * script's or a job's are. For a privileged read or write a controller makes on purpose (a
 * counter the caller may not see, a record handed to another tenant by a rule of the
 * application); never to answer the client with what the caller may not see, nor for a write
 * with what the client sent.
 */
export const asSystem = (model: Model): Model => systemModels.get(model) ?? model;

/** The input as an object of fields; anything else is refused as the model refuses it (400 `APP_BODY_INVALID`). */
function fieldsOf(model: Model, input: unknown, mode: 'create' | 'update'): Record<string, unknown> {
  if (input === undefined) return {};
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    checkInput(model.shape, input as Record<string, unknown>, mode);
  return input as Record<string, unknown>;
}

/** The record with this external id if the caller may `show` it; a hidden one is as absent as a missing one. */
async function visibleRecord(
  model: Model,
  principal: PolicyPrincipal | undefined,
  externalId: string,
): Promise<ModelRecord | undefined> {
  const record = EXTERNAL_ID.test(externalId) ? await model.find(externalId) : undefined;
  return record && (await policyAllows(model, principal, 'show', record)) ? record : undefined;
}

type Where = Readonly<Record<string, string | number | boolean | null>>;

/** `where` and the caller's scope together; undefined when they ask for different values of one field (nothing matches). */
function scoped(where: Where, scope: Where | undefined): Where | undefined {
  if (!scope) return where;
  for (const [field, value] of Object.entries(scope)) if (field in where && where[field] !== value) return undefined;
  return { ...where, ...scope };
}

/** A page of `model` as `principal` may list it: the policy's `index`, its scope, and only what it may `show`. */
async function visiblePage(
  model: Model,
  principal: PolicyPrincipal | undefined,
  pagination: Parameters<Model['paginate']>[0],
  where: Where,
  options: NonNullable<Parameters<Model['paginate']>[2]>,
): Promise<Page> {
  await authorizeCollection(model, principal, 'index');
  const own = options.keep;
  const keep = async (records: readonly ModelRecord[]) => {
    const shown = await visibleRecords(model, principal, records);
    return own ? own(shown) : shown;
  };
  const scope = model.declaration.policyScope?.(principal);
  const limited = scoped(where, scope);
  // a `where` outside the scope matches nothing: an empty page, its paging bounds asked of the model
  if (!limited) return { ...(await model.paginate(pagination, scope)), records: [], total: 0, pages: 0 };
  if (!scope || own) return model.paginate(pagination, limited, { keep });
  // the scope is what the policy shows, counted in SQL; the policy still decides each listed record
  const page = await model.paginate(pagination, limited);
  return { ...page, records: await visibleRecords(model, principal, page.records) };
}

/** `model` whose reads and writes apply its rules for `caller`; `models` are those its references name. */
export function guardModel(models: Models, model: Model, caller: Caller): Model {
  const guarded: Model = {
    ...model,
    async find(externalId) {
      if (!model.declaration.policy) return model.find(externalId);
      return visibleRecord(model, caller(), externalId);
    },
    async findMany(keys) {
      return visibleRecords(model, caller(), await model.findMany(keys));
    },
    async paginate(pagination, where = {}, options = {}) {
      if (!model.declaration.policy) return model.paginate(pagination, where, options);
      return visiblePage(model, caller(), pagination, where, options);
    },
    async create(input) {
      const principal = caller();
      const fields = fieldsOf(model, input, 'create');
      await authorizeCollection(model, principal, 'create', fields);
      await assertReferencesVisible(models, model, principal, fields);
      return model.create(fields);
    },
    async update(externalId, input, options = {}) {
      const principal = caller();
      const fields = fieldsOf(model, input, 'update');
      if (model.declaration.policy) {
        const record = await visibleRecord(model, principal, externalId);
        if (!record) return undefined;
        await authorizeRecord(model, principal, 'update', record);
      }
      await assertReferencesVisible(models, model, principal, fields);
      const stays = staysVisible(model, principal);
      const own = options.check;
      return model.update(externalId, fields, {
        check: async (record) => {
          await stays?.(record);
          await own?.(record);
        },
      });
    },
    async destroy(externalId) {
      const principal = caller();
      if (model.declaration.policy) {
        const record = await visibleRecord(model, principal, externalId);
        if (!record) return false;
        await authorizeRecord(model, principal, 'destroy', record);
      }
      return model.destroy(externalId);
    },
  };
  systemModels.set(guarded, model);
  return guarded;
}

/** Every model of `models` guarded for `caller`, each made when first asked for. */
export function guardModels(models: Models, caller: Caller): Models {
  const made = new Map<Model, Model>();
  const guard = (model: Model | undefined): Model | undefined => {
    if (!model) return undefined;
    let guarded = made.get(model);
    if (!guarded) {
      guarded = guardModel(models, model, caller);
      made.set(model, guarded);
    }
    return guarded;
  };
  return {
    get: (name) => guard(models.get(name)),
    byCollection: (collection) => guard(models.byCollection(collection)),
    all: () => models.all().map((model) => guard(model) as Model),
  };
}

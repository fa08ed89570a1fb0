/**
 * Model policies applied (api/model-framework/data/types.ts `policy`, `policyScope`): the decision for one
 * record, the refusal it turns into, and which of a record's links survive. A model without a
 * policy allows everything its routes' role rules allow.
 */
import { forbidden, notFound } from '../../../shared/errors/app-error.ts';
import { referenceInvalid, type Model, type ModelRecord, type Models } from './model.ts';
import type { PolicyAction, PolicyPrincipal } from './types.ts';

/** Whether the model's policy lets `principal` do `action` (with `record`); true without a policy. */
export async function policyAllows(
  model: Model | undefined,
  principal: PolicyPrincipal | undefined,
  action: PolicyAction,
  record?: object,
): Promise<boolean> {
  const policy = model?.declaration.policy;
  if (!policy) return true;
  return (await policy(principal, action, record as Record<string, unknown> | undefined)) === true;
}

/** 404 for a record the principal may not see (the model's usual not-found answer). */
export const hiddenRecord = (model: Model, externalId: string) =>
  notFound(`no ${model.name} has the externalId ${JSON.stringify(externalId)}`, {
    code: 'APP_RECORD_NOT_FOUND',
    data: { model: model.name, externalId },
  });

/**
 * Enforces the policy for `action` on `record`: a record the principal may not `show` is 404; a
 * refused action on a record it may see is 403 `APP_FORBIDDEN`.
 */
export async function authorizeRecord(
  model: Model,
  principal: PolicyPrincipal | undefined,
  action: PolicyAction,
  record: object & { externalId?: unknown },
): Promise<void> {
  if (!model.declaration.policy) return;
  const externalId = typeof record.externalId === 'string' ? record.externalId : '';
  if (!(await policyAllows(model, principal, 'show', record))) throw hiddenRecord(model, externalId);
  if (action !== 'show' && !(await policyAllows(model, principal, action, record))) {
    throw forbidden(`the ${model.name} policy does not allow ${action} on this record`, {
      code: 'APP_FORBIDDEN',
      data: { action, model: model.name },
    });
  }
}

/** Enforces the policy for a collection action (`index`, `new`; `create` with its input). 403 `APP_FORBIDDEN`. */
export async function authorizeCollection(
  model: Model,
  principal: PolicyPrincipal | undefined,
  action: PolicyAction,
  input?: object,
): Promise<void> {
  if (!(await policyAllows(model, principal, action, input))) {
    throw forbidden(`the ${model.name} policy does not allow ${action}`, {
      code: 'APP_FORBIDDEN',
      data: { action, model: model.name },
    });
  }
}

/**
 * The check of an update's result (`Model.update`'s `check`), or undefined when the model has
 * neither `policy` nor `policyScope`: the record as the change made it must still be one the
 * principal may `show`, and within its `policyScope`; otherwise 403 `APP_FORBIDDEN` and the
 * write is undone. The policy decides `update` on the record as it was, so without this a
 * caller could move a record it may update out of its own reach (to another owner), and the
 * change's event to that owner's endpoints.
 */
export function staysVisible(
  model: Model,
  principal: PolicyPrincipal | undefined,
): ((record: ModelRecord) => Promise<void>) | undefined {
  const { policy, policyScope } = model.declaration;
  if (!policy && !policyScope) return undefined;
  return async (record) => {
    const scope = policyScope?.(principal) ?? {};
    const inScope = Object.entries(scope).every(([field, value]) => (record[field] ?? null) === value);
    if (!inScope || !(await policyAllows(model, principal, 'show', record))) {
      throw forbidden(
        `the ${model.name} policy does not allow an update that leaves the record out of the caller's reach`,
        {
          code: 'APP_FORBIDDEN',
          data: { action: 'update', model: model.name },
        },
      );
    }
  };
}

/**
 * Refuses references to records the principal may not see: each reference field of `input`
 * (public form, references as `externalId`s) whose model has a policy must name a record that
 * policy lets the principal `show` (one statement per referenced model). Otherwise 422
 * `APP_REFERENCE_INVALID`, the answer for a reference to no record, so a create or update can
 * neither link to another tenant's record nor tell that it exists.
 */
export async function assertReferencesVisible(
  models: Models,
  model: Model,
  principal: PolicyPrincipal | undefined,
  input: Readonly<Record<string, unknown>>,
): Promise<void> {
  const checked = model.shape.references.filter(
    (field) => typeof input[field.name] === 'string' && models.get(field.ref as string)?.declaration.policy,
  );
  const byModel = new Map<Model, string[]>();
  for (const field of checked) {
    const referenced = models.get(field.ref as string) as Model;
    byModel.set(referenced, [...(byModel.get(referenced) ?? []), input[field.name] as string]);
  }
  const visible = new Set<string>();
  await Promise.all(
    [...byModel].map(async ([referenced, externalIds]) => {
      for (const record of await visibleRecords(referenced, principal, await referenced.findMany(externalIds)))
        visible.add(`${referenced.name}:${record.externalId}`);
    }),
  );
  const hidden = checked.filter((field) => !visible.has(`${field.ref}:${input[field.name] as string}`));
  if (hidden.length > 0) throw referenceInvalid(hidden, input);
}

/** The records of a list the principal may `show` (in their order). */
export async function visibleRecords<T extends object>(
  model: Model | undefined,
  principal: PolicyPrincipal | undefined,
  records: readonly T[],
): Promise<T[]> {
  if (!model?.declaration.policy) return [...records];
  const allowed = await Promise.all(records.map((record) => policyAllows(model, principal, 'show', record)));
  return records.filter((_, index) => allowed[index]);
}

/** The record-level actions its links stand for, decided once per record: rel -> allowed. */
export const LINK_ACTIONS: Readonly<Record<string, PolicyAction>> = {
  self: 'show',
  edit: 'edit',
  update: 'update',
  destroy: 'destroy',
};

export async function recordDecisions(
  model: Model | undefined,
  principal: PolicyPrincipal | undefined,
  record: object,
): Promise<ReadonlyMap<PolicyAction, boolean> | undefined> {
  if (!model?.declaration.policy) return undefined;
  const actions = [...new Set(Object.values(LINK_ACTIONS))];
  const answers = await Promise.all(actions.map((action) => policyAllows(model, principal, action, record)));
  return new Map(actions.map((action, index) => [action, answers[index]]));
}

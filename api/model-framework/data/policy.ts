/**
 * Model policies applied (api/model-framework/data/types.ts `policy`, `policyScope`): the decision for one
 * record, the refusal it turns into, and which of a record's links survive. A model without a
 * policy allows everything its routes' role rules allow.
 */
import { forbidden, notFound } from '../../../shared/errors/app-error.ts';
import type { Model } from './model.ts';
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

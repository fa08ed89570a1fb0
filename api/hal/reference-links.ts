/**
 * Links from a record to the records it references, so a HAL client can follow them: a post's
 * `author` (the referenced Author's `externalId` in the payload) is also `_links.author`, the
 * Author's `self`. A reference is linked when its model is routed with `show` and the caller
 * would get that record's `self` link: the route's roles admit `show` for the caller, and, when
 * the referenced model has a policy, the policy lets the caller `show` that record (the records
 * of a page are read with one statement per referenced model). The relation is the field's name;
 * a field named like a link of the record itself (`self`, `edit`…) is left unlinked.
 */
import type { Model, Models, PublicRecord } from '../model-framework/data/model.ts';
import { policyAllows } from '../model-framework/data/policy.ts';
import { decide, type Principal } from '../model-framework/routing/roles.ts';
import { resourcesServing, type ResourceRoutes } from '../model-framework/routing/table.ts';
import type { Links } from './links.ts';

/** The relations a record's own links use (links.ts), which a reference never takes. */
export const OWN_RELS: ReadonlySet<string> = new Set([
  'self',
  'collection',
  'edit',
  'update',
  'destroy',
  'create',
  'new',
  'first',
  'prev',
  'next',
  'last',
]);

interface Target {
  field: string;
  model: Model;
  resource: ResourceRoutes;
}

/** The routed resource showing `model`'s records: the first declared with `show`. */
function showing(model: Model, resources: ReadonlyMap<string, ResourceRoutes>): ResourceRoutes | undefined {
  return resourcesServing(model, resources).find((resource) => resource.actions.has('show'));
}

/** Per route table, per model: its reference targets (a route table is fixed once built). */
const targetsOf = new WeakMap<ReadonlyMap<string, ResourceRoutes>, Map<Model, readonly Target[]>>();

/** The reference fields of `model` whose referenced model is routed with `show`. */
function targets(
  model: Model,
  deps: { models: Models; resources: ReadonlyMap<string, ResourceRoutes> },
): readonly Target[] {
  let known = targetsOf.get(deps.resources);
  if (!known) targetsOf.set(deps.resources, (known = new Map()));
  let found = known.get(model);
  if (!found) {
    found = model.shape.references.flatMap((field) => {
      const referenced = deps.models.get(field.ref as string);
      const resource = referenced && !OWN_RELS.has(field.name) ? showing(referenced, deps.resources) : undefined;
      return referenced && resource ? [{ field: field.name, model: referenced, resource }] : [];
    });
    known.set(model, found);
  }
  return found;
}

/**
 * The reference links of each record (public form, references as `externalId`s) of `model`, in
 * order, as `principal` may follow them.
 */
export async function referenceLinks(
  deps: { models: Models; resources: ReadonlyMap<string, ResourceRoutes> },
  model: Model,
  records: readonly PublicRecord[],
  principal: Principal | undefined,
): Promise<Links[]> {
  const allowed = targets(model, deps).filter((target) => decide(target.resource.roles, 'show', principal) === 'allow');
  if (allowed.length === 0) return records.map(() => ({}));
  const visible = await policyDecisions(allowed, records, principal);
  return records.map((record) => {
    const links: Links = {};
    for (const target of allowed) {
      const externalId = record[target.field];
      if (typeof externalId !== 'string') continue;
      if (visible.get(target.model)?.get(externalId) === false) continue;
      links[target.field] = { href: target.resource.item(externalId) };
    }
    return links;
  });
}

/**
 * For each referenced model with a policy: externalId -> whether the principal may `show` that
 * record (one statement per model for the whole list; a record not found is not shown).
 */
async function policyDecisions(
  targets: readonly Target[],
  records: readonly PublicRecord[],
  principal: Principal | undefined,
): Promise<Map<Model, Map<string, boolean>>> {
  const wanted = new Map<Model, Set<string>>();
  for (const target of targets) {
    if (!target.model.declaration.policy) continue;
    const ids = wanted.get(target.model) ?? new Set<string>();
    for (const record of records) {
      const externalId = record[target.field];
      if (typeof externalId === 'string') ids.add(externalId);
    }
    wanted.set(target.model, ids);
  }
  const decisions = new Map<Model, Map<string, boolean>>();
  await Promise.all(
    [...wanted].map(async ([referenced, ids]) => {
      const found = ids.size === 0 ? [] : await referenced.findMany([...ids]);
      const byExternalId = new Map(found.map((record) => [record.externalId, record]));
      const answers = await Promise.all(
        [...ids].map(async (externalId) => {
          const record = byExternalId.get(externalId);
          return [
            externalId,
            record !== undefined && (await policyAllows(referenced, principal, 'show', record)),
          ] as const;
        }),
      );
      decisions.set(referenced, new Map(answers));
    }),
  );
  return decisions;
}

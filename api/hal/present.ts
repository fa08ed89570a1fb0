/**
 * Turns records into HAL answers (resources and collections, for the controller
 * helpers). Plain functions of `(deps, input)`: the Koa helpers in
 * api/model-framework/routing/controller-helpers.ts only read the request and apply what these return.
 */
import { isPublished, modelOf, type Model, type Models, type PublicRecord } from '../model-framework/data/model.ts';
import { decide, type Principal } from '../model-framework/routing/roles.ts';
import type { ResourceRoutes } from '../model-framework/routing/table.ts';
import { recordDecisions } from '../model-framework/data/policy.ts';
import { jsonTime } from './json-time.ts';
import { collectionLinks, itemLinks, linkHeader, mergeLinks, type LinkInput, type Links, type May } from './links.ts';
import { referenceLinks } from './reference-links.ts';
import { deepestPage } from '../../shared/db/page-depth.ts';

export interface PresentDeps {
  models: Models;
  resources: ReadonlyMap<string, ResourceRoutes>;
  /** The paging bound (`api.maxPageOffset`): a collection's links stop at the deepest page it allows. */
  maxPageOffset: number;
}

/** Options common to `resource()` and `collection()`. */
export interface PresentOptions {
  /** Resource (controller) name when it differs from the route's: picks the links and the `_embedded` key. */
  type?: string;
  /** Extra or replacing links: `{rel: href}` or HAL link objects. */
  links?: Readonly<Record<string, LinkInput>>;
  /** Answer status; 201 also sets `Location` to the self link. */
  status?: number;
  /**
   * What the model's policy reads for this record's links (its `subject`), when the record
   * given is a presented or plain object rather than the model's record. For a collection: one
   * subject per record, in order.
   */
  subject?: object | readonly object[];
}

export interface CollectionOptions extends PresentOptions {
  page?: number;
  perPage?: number;
  total?: number;
  /** `total` is PostgreSQL's estimate (a listing past `api.exactTotal`): the page says `totalEstimated`. */
  totalEstimated?: boolean;
  /**
   * The deepest page the listing answers: no link points past it. By default the deepest page
   * `api.maxPageOffset` allows at this `perPage` (every offset listing refuses pages past it).
   */
  deepestPage?: number;
}

export interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

interface Target {
  type: string | undefined;
  resource: ResourceRoutes | undefined;
  model: Model | undefined;
  may: May;
}

function target(deps: PresentDeps, type: string | undefined, principal: Principal | undefined): Target {
  const resource = type === undefined ? undefined : deps.resources.get(type);
  const model = resource?.model
    ? deps.models.get(resource.model)
    : type === undefined
      ? undefined
      : deps.models.byCollection(type);
  return { type, resource, model, may: (action) => decide(resource?.roles, action, principal) === 'allow' };
}

/**
 * The public form of each record: model records through their own model, plain objects through
 * the type's model (so foreign keys are recognised), already-published ones as they are. One
 * lookup statement per referenced model for the whole list.
 */
async function publishAll(records: readonly object[], fallback: Model | undefined): Promise<PublicRecord[]> {
  const groups = new Map<Model, number[]>();
  const output: PublicRecord[] = new Array(records.length);
  records.forEach((record, index) => {
    const model = isPublished(record) ? undefined : (modelOf(record) ?? fallback);
    if (!model) {
      output[index] = record as PublicRecord;
      return;
    }
    const group = groups.get(model);
    if (group) group.push(index);
    else groups.set(model, [index]);
  });
  await Promise.all(
    [...groups].map(async ([model, indexes]) => {
      const published = await model.publish(indexes.map((index) => records[index]));
      for (const [position, index] of indexes.entries()) output[index] = published[position];
    }),
  );
  return output;
}

/**
 * `{_links: links, ...record}` (a record's own `_links` keeps the first place and replaces the one
 * given), its dates written as JSON writes them (json-time.ts): the JSON of the answer is the
 * same, and serialising it costs less.
 */
function linked(links: Links, record: PublicRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { _links: links, ...record };
  for (const key in out) {
    const value = out[key];
    if (value instanceof Date) out[key] = jsonTime(value);
  }
  return out;
}

/** A record of a type without routes: no links to decide (the record may bring its own `_links`). */
const unlinked = (record: PublicRecord): Record<string, unknown> => linked({}, record);

/**
 * A record with its `_links`: those the role rules allow and, when the model has a policy, those
 * its policy allows for this record (`subject`, default the record itself); then the links to
 * the records it references (`references`, reference-links.ts).
 */
async function item(
  record: PublicRecord,
  on: Target,
  principal: Principal | undefined,
  subject: object,
  references: Links,
): Promise<Record<string, unknown>> {
  const externalId = typeof record.externalId === 'string' ? record.externalId : undefined;
  if (!on.resource) return unlinked(record);
  const decisions = await recordDecisions(on.model, principal, subject);
  const may: May = decisions ? (action) => on.may(action) && decisions.get(action) !== false : on.may;
  return linked({ ...itemLinks(on.resource, externalId, may), ...references }, record);
}

/** The reference links of each record of a routed type (none for a type without routes or model). */
async function referencesOf(
  deps: PresentDeps,
  on: Target,
  records: readonly PublicRecord[],
  principal: Principal | undefined,
): Promise<Links[]> {
  if (!on.resource || !on.model) return records.map(() => ({}));
  return referenceLinks(deps, on.model, records, principal);
}

/** The subject of the record at `index`: the given subject(s), else the record as given. */
const subjectAt = (options: PresentOptions, records: readonly object[], index: number): object => {
  const subject = options.subject;
  if (subject === undefined) return records[index];
  return Array.isArray(subject) ? (subject[index] ?? records[index]) : (subject as object);
};

function selfHref(links: Links): string | undefined {
  const self = links.self;
  return self && !Array.isArray(self) ? self.href : undefined;
}

/** One record as HAL: `_links` (role-filtered), public fields, `externalId`. */
export async function presentResource(
  deps: PresentDeps,
  input: { record: object; type: string | undefined; principal: Principal | undefined; options: PresentOptions },
): Promise<Answer> {
  const on = target(deps, input.options.type ?? input.type, input.principal);
  const [published] = await publishAll([input.record], on.model);
  const [references] = await referencesOf(deps, on, [published], input.principal);
  const body = await item(published, on, input.principal, subjectAt(input.options, [input.record], 0), references);
  body._links = mergeLinks(body._links as Links, input.options.links);
  const status = input.options.status ?? 200;
  const headers: Record<string, string> = {};
  const self = selfHref(body._links as Links);
  if (status === 201 && self) headers.Location = self;
  return { status, body, headers };
}

/** A page of records as HAL: paging links, `create`/`new`, `_embedded.<type>` of full resources, counters; `Link` and `X-Total-Count` headers. */
export async function presentCollection(
  deps: PresentDeps,
  input: {
    records: readonly object[];
    type: string | undefined;
    principal: Principal | undefined;
    /** Path the paging links point at when the type has no routes (the request path). */
    path: string;
    /** Page and size of the request (`ctx.pagination()`), used when the options give none. */
    pagination: () => { page: number; perPage: number };
    /** The request's parameters its paging links repeat (those its action declared). */
    kept?: URLSearchParams;
    options: CollectionOptions;
  },
): Promise<Answer> {
  const { options } = input;
  const type = options.type ?? input.type ?? 'items';
  const on = target(deps, type, input.principal);
  const requested = options.page === undefined || options.perPage === undefined ? input.pagination() : undefined;
  const page = options.page ?? (requested as { page: number }).page;
  const perPage = options.perPage ?? (requested as { perPage: number }).perPage;
  const total = options.total ?? input.records.length;
  const published = await publishAll(input.records, on.model);
  // without routes there is nothing to wait for per record (a page of a webhook listing)
  const references = await referencesOf(deps, on, published, input.principal);
  const items = on.resource
    ? await Promise.all(
        published.map((record, index) =>
          item(record, on, input.principal, subjectAt(options, input.records, index), references[index]),
        ),
      )
    : published.map(unlinked);
  const path = on.resource?.collection ?? input.path;
  const links = mergeLinks(
    collectionLinks(
      path,
      { page, perPage, total, deepest: options.deepestPage ?? deepestPage(perPage, deps.maxPageOffset) },
      on.resource,
      on.may,
      input.kept,
    ),
    options.links,
  );
  return {
    status: options.status ?? 200,
    body: {
      _links: links,
      _embedded: { [type]: items },
      count: items.length,
      page,
      perPage,
      total,
      ...(options.totalEstimated === undefined ? {} : { totalEstimated: options.totalEstimated }),
    },
    headers: { ...headerIf('Link', linkHeader(links)), 'X-Total-Count': String(total) },
  };
}

/** `{name: value}`, or nothing for an empty value (an empty header is no header). */
const headerIf = (name: string, value: string): Record<string, string> => (value === '' ? {} : { [name]: value });

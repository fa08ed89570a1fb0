/**
 * The application routes as OpenAPI path items: one operation per compiled route, with its
 * parameters, request body, success answer and the problem answers that apply to it.
 */
import type { Model } from '../model-framework/data/model.ts';
import type { AcceptedQuery } from '../model-framework/routing/query-parameters.ts';
import { rolesFor } from '../model-framework/routing/roles.ts';
import type { CompiledRoute } from '../model-framework/routing/table.ts';
import { HAL_TYPE, JSON_TYPE, ref, versionedType, type Json } from './components.ts';
import { modelSchemaNames } from './models.ts';
import { TOKEN_OPERATIONS } from './tokens.ts';
import { WEBHOOK_OPERATIONS, type WebhookOperation } from './webhooks.ts';

/** What the paths depend on besides the routes. */
export interface PathOptions {
  /** Whether `Idempotency-Key` is honoured (`config.api.idempotency`). */
  idempotency: boolean;
  /** Whether a global limiter is configured (`config.rateLimit`). */
  rateLimited: boolean;
}

/** Koa `/posts/:externalId` -> OpenAPI `/posts/{externalId}`. */
export const openapiPath = (path: string): string => path.replace(/:([A-Za-z_]\w*)/g, '{$1}');

/** Names of a route's path parameters. */
export const pathParameters = (path: string): string[] =>
  [...path.matchAll(/:([A-Za-z_]\w*)/g)].map((match) => match[1]);

const SUMMARIES: Record<string, (model: string, name: string) => string> = {
  index: (_model, name) => `List ${name}`,
  new: (model) => `A new ${model} with the declared defaults`,
  create: (model) => `Create a ${model}`,
  show: (model) => `Show a ${model}`,
  edit: (model) => `A ${model} to edit`,
  update: (model) => `Change a ${model}`,
  destroy: (model) => `Delete a ${model}`,
};

/** What an operation takes and answers, from the model (generic controller) or the product APIs' documentation (webhooks, tokens). */
function contract(route: CompiledRoute, model: Model | undefined): WebhookOperation | undefined {
  const key = `${route.controller}.${route.action}`;
  const documented = WEBHOOK_OPERATIONS[key] ?? TOKEN_OPERATIONS[key];
  if (documented) return documented;
  if (!model || route.kind === 'single') return undefined;
  const names = modelSchemaNames(model.name);
  const summary = SUMMARIES[route.action]?.(model.name, route.name) ?? `${route.action} ${route.name}`;
  switch (route.action) {
    case 'index':
      return { summary, status: 200, answer: ref('schemas', names.collection) };
    case 'create':
      return { summary, status: 201, answer: ref('schemas', names.resource), body: names.create };
    case 'update':
      return { summary, status: 200, answer: ref('schemas', names.resource), body: names.update };
    case 'destroy':
      return { summary, status: 204 };
    default:
      return { summary, status: 200, answer: ref('schemas', names.resource) };
  }
}

/** The JSON media types a route answers and reads: JSON, HAL, and the versioned type when it has a version. */
const jsonTypes = (route: CompiledRoute): string[] => [
  JSON_TYPE,
  HAL_TYPE,
  ...(route.version ? [versionedType(route.version)] : []),
];

const content = (types: readonly string[], schema: Json): Json =>
  Object.fromEntries(types.map((type) => [type, { schema }]));

/**
 * Whether a route answers a page (HAL collection): paging parameters, `Link`, `X-Total-Count`.
 * Its action's declaration says so; for an action that declared nothing, a GET `index` or a
 * documented collection answer.
 */
const answersPage = (
  route: CompiledRoute,
  spec: WebhookOperation | undefined,
  accepted: AcceptedQuery | undefined,
): boolean =>
  accepted
    ? accepted.paged
    : route.method === 'GET' &&
      (route.action === 'index' || JSON.stringify(spec?.answer ?? {}).includes('/HalCollection"'));

/**
 * The query parameters of a route: those its action declared, each with the description the
 * product APIs' documentation gives it (a plain string parameter when it gives none); for an
 * action that declared nothing, the documented ones.
 */
function queryParameters(spec: WebhookOperation | undefined, accepted: AcceptedQuery | undefined): Json[] {
  if (!accepted) return [...(spec?.query ?? [])];
  const described = new Map((spec?.query ?? []).map((parameter) => [parameter.name as string, parameter]));
  return accepted.parameters.map(
    (name) => described.get(name) ?? { name, in: 'query', required: false, schema: { type: 'string' } },
  );
}

function successResponse(
  route: CompiledRoute,
  spec: WebhookOperation | undefined,
  paged: boolean,
  options: PathOptions,
): Json {
  const headers: Json = { 'X-Request-Id': ref('headers', 'XRequestId') };
  if (rateLimited(route, options))
    Object.assign(headers, {
      RateLimit: ref('headers', 'RateLimit'),
      'RateLimit-Policy': ref('headers', 'RateLimitPolicy'),
    });
  const status = spec?.status ?? 200;
  if (status === 204) return { description: 'Done; no body.', headers };
  headers.ETag = ref('headers', 'ETag');
  const located = status === 201 && !spec?.unaddressed;
  if (located) headers.Location = ref('headers', 'Location');
  if (route.idempotent && options.idempotency) headers['Idempotency-Replayed'] = ref('headers', 'IdempotencyReplayed');
  const collection = paged;
  if (collection)
    Object.assign(headers, { Link: ref('headers', 'Link'), 'X-Total-Count': ref('headers', 'XTotalCount') });
  const description =
    status === 201
      ? located
        ? 'Created; `Location` names the new resource.'
        : 'Created; the resource has no address of its own, so no `Location`.'
      : status === 202
        ? 'Accepted; the work is queued.'
        : collection
          ? 'A page of HAL resources.'
          : spec
            ? 'The HAL resource.'
            : "The controller's answer.";
  const schema = spec?.answer ?? (route.kind === 'single' ? {} : ref('schemas', 'HalResource'));
  return { description, headers, content: content(jsonTypes(route), schema) };
}

const rateLimited = (route: CompiledRoute, options: PathOptions): boolean =>
  options.rateLimited || route.rateLimit !== undefined;

/**
 * The problem answers of a route, by status; `checked`: it refuses a query parameter it does not
 * accept (422); `model`: a resources/crud route of a model (the generic controller's writes).
 */
function problems(
  route: CompiledRoute,
  request: { hasBody: boolean; paged: boolean; checked: boolean; model: boolean },
  options: PathOptions,
): Json {
  const { hasBody, paged, checked } = request;
  const statuses = new Set<number>();
  const idempotent = route.idempotent && options.idempotency;
  if (hasBody || paged || idempotent) statuses.add(400);
  if (rolesFor(route.roles, route.action) !== undefined) {
    statuses.add(401);
    statuses.add(403);
  }
  if (pathParameters(route.path).length > 0) statuses.add(404);
  if (route.version) statuses.add(406);
  // the versioned APIs (webhooks, tokens) and a model's generic controller evaluate If-Match on
  // their writes (api/http/preconditions.ts)
  if ((route.version || request.model) && route.method !== 'GET') statuses.add(412);
  if (idempotent) {
    statuses.add(409);
    statuses.add(422);
  }
  if (checked) statuses.add(422);
  if (hasBody) {
    statuses.add(413);
    statuses.add(415); // a body that is not JSON (or a form), a charset other than UTF-8, an unknown Content-Encoding
    statuses.add(422);
  }
  if (rateLimited(route, options)) statuses.add(429);
  statuses.add(503);
  return Object.fromEntries(
    [...statuses].sort().map((status) => [String(status), ref('responses', `Problem${status}`)]),
  );
}

/** One OpenAPI operation for a compiled route; `accepted`, the query its action declared. */
export function routeOperation(
  route: CompiledRoute,
  model: Model | undefined,
  operationId: string,
  options: PathOptions,
  accepted?: AcceptedQuery,
): Json {
  const spec = contract(route, model);
  const paged = answersPage(route, spec, accepted);
  const hasBody =
    spec?.body !== undefined || (route.kind === 'single' && ['POST', 'PUT', 'PATCH'].includes(route.method));
  const parameters: Json[] = pathParameters(route.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    ...(name === 'externalId' ? { description: "The record's public identifier." } : {}),
    schema: { type: 'string' },
  }));
  if (paged) parameters.push(ref('parameters', 'Page'), ref('parameters', 'PerPage'));
  parameters.push(...queryParameters(spec, accepted));
  if (route.method === 'GET') parameters.push(ref('parameters', 'IfNoneMatch'));
  if (route.idempotent && options.idempotency) parameters.push(ref('parameters', 'IdempotencyKey'));

  const operation: Json = {
    operationId,
    tags: [route.kind === 'single' ? route.controller : route.name],
    summary: spec?.summary ?? `${route.controller}.${route.action}`,
    description: `Route \`${route.key}\`, action \`${route.action}\`${route.version ? `, API version \`${route.version}\` (another version asked for in \`Accept\` is 406 \`APP_VERSION_NOT_ACCEPTABLE\`)` : ''}.`,
  };
  if (parameters.length > 0) operation.parameters = parameters;
  if (hasBody) {
    const schema = spec?.body ? ref('schemas', spec.body) : { type: 'object', additionalProperties: true };
    operation.requestBody = {
      required: spec?.body !== undefined && route.method === 'POST',
      content: { ...content(jsonTypes(route), schema), 'application/x-www-form-urlencoded': { schema } },
    };
  }
  const responses: Json = { [String(spec?.status ?? 200)]: successResponse(route, spec, paged, options) };
  if (route.method === 'GET') responses['304'] = ref('responses', 'NotModified');
  Object.assign(
    responses,
    problems(
      route,
      { hasBody, paged, checked: accepted !== undefined, model: model !== undefined && route.kind !== 'single' },
      options,
    ),
  );
  operation.responses = responses;
  const roles = rolesFor(route.roles, route.action);
  if (roles !== undefined) {
    operation.security = [{ bearer: [] }, { session: [] }];
    operation['x-roles'] = [...roles];
  }
  return operation;
}

/** A unique operation id per route: `<resource or controller>.<action>`, numbered on a clash. */
function operationIds(routes: readonly CompiledRoute[]): string[] {
  const seen = new Map<string, number>();
  return routes.map((route) => {
    const base = `${route.kind === 'single' ? route.controller : route.name}.${route.action}`;
    const count = (seen.get(base) ?? 0) + 1;
    seen.set(base, count);
    return count === 1 ? base : `${base}${count}`;
  });
}

/** The path items of every route, paths in OpenAPI form, methods lower-cased. */
export function routePaths(
  routes: ReadonlyArray<{ route: CompiledRoute; model: Model | undefined; accepted?: AcceptedQuery }>,
  options: PathOptions,
): Json {
  const paths: Record<string, Json> = {};
  const ids = operationIds(routes.map(({ route }) => route));
  routes.forEach(({ route, model, accepted }, index) => {
    const item = (paths[openapiPath(route.path)] ??= {});
    item[route.method.toLowerCase()] = routeOperation(route, model, ids[index], options, accepted);
  });
  return paths;
}

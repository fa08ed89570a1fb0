/**
 * The route table (`api/model-framework/routes.ts`): route key -> options, compiled into the routes the router
 * mounts and the per-resource link builders the HAL helpers use.
 *
 * Keys:
 * - `resources <name>`: index, new, create, show, edit, update, destroy;
 * - `crud <name>`: the same without the HTML forms `new` and `edit`;
 * - `<METHOD> /path` (GET, POST, PUT, PATCH, DELETE): one route; `controller` is `<name>.<action>`.
 *
 * Paths, under the scope (`api/v1` -> `/api/v1`): collection `/<name>` (GET index, POST create),
 * `/<name>/new`, item `/<name>/<externalId>` (GET show, PATCH update, DELETE destroy),
 * `/<name>/<externalId>/edit`.
 */
import { ACCOUNT_PATHS } from '../../accounts/paths.ts';
import { OPERATIONS, type Operation } from '../../../shared/access/permissions.ts';
import { roleRuleProblems, type RoleRule } from './roles.ts';

export const RESOURCE_ACTIONS = ['index', 'new', 'create', 'show', 'edit', 'update', 'destroy'] as const;
export const CRUD_ACTIONS = ['index', 'create', 'show', 'update', 'destroy'] as const;
export type ResourceAction = (typeof RESOURCE_ACTIONS)[number];

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteOptions {
  /** Controller name (resources/crud: default the resource name; single routes: `<name>.<action>`, required). */
  controller?: string;
  /** Model served by the generic controller (resources/crud: default the model whose collection is the resource name). */
  model?: string;
  /** Path prefix, e.g. `api/v1`. */
  scope?: string;
  /** API version the route serves (`v1`); a client asking for another gets 406. */
  version?: string;
  /** Mutating routes take `Idempotency-Key` unless false (default: true for POST, PUT, PATCH, DELETE). */
  idempotent?: boolean;
  /** Per-route limit, always enforced (the route limiter slot). */
  rateLimit?: { windowMs: number; max: number };
  /** Who may run which action; see api/model-framework/routing/roles.ts. */
  roles?: RoleRule;
  /**
   * The operation of the permission table (shared/access/permissions.ts) the route runs, or a map
   * action -> operation: a caller its `roles` refuse gets the core's refusal of that operation
   * (api/middleware/role-guard.ts).
   */
  operation?: Operation | Readonly<Record<string, Operation>>;
}

export type RouteTable = Readonly<Record<string, RouteOptions>>;

/** One mounted route. */
export interface CompiledRoute {
  key: string;
  kind: 'resources' | 'crud' | 'single';
  /** Resource name (resources/crud) or the controller name (single). */
  name: string;
  action: string;
  method: Method;
  /** Router path (`/api/v1/posts/:externalId`). */
  path: string;
  controller: string;
  /** Model name for resources/crud routes (may name no model when a hand-written controller serves them). */
  model: string | undefined;
  version: string | undefined;
  idempotent: boolean;
  rateLimit: { windowMs: number; max: number } | undefined;
  roles: RoleRule | undefined;
  /** The operation of the permission table this action runs, when the declaration names one. */
  operation?: Operation;
}

/** The link builders of one resources/crud declaration. */
export interface ResourceRoutes {
  name: string;
  kind: 'resources' | 'crud';
  model: string | undefined;
  actions: ReadonlySet<ResourceAction>;
  roles: RoleRule | undefined;
  /** The declaration's `operation` option (see `operationOf`). */
  operation?: RouteOptions['operation'];
  collection: string;
  newForm: string;
  item(externalId: string): string;
  edit(externalId: string): string;
}

export interface RouteMap {
  routes: readonly CompiledRoute[];
  /** resources/crud declarations by resource name. */
  resources: ReadonlyMap<string, ResourceRoutes>;
}

/**
 * The resources/crud declarations serving `model`'s records, in declaration order: those naming
 * it in `model`, and those without `model` whose resource name is its collection.
 */
export function resourcesServing(
  model: { name: string; collection: string },
  resources: ReadonlyMap<string, ResourceRoutes>,
): ResourceRoutes[] {
  return [...resources.values()].filter((resource) =>
    resource.model !== undefined ? resource.model === model.name : resource.name === model.collection,
  );
}

/** Thrown at boot for an unusable route table; `problems` lists every one. */
export class RouteTableError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`invalid route table:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'RouteTableError';
    this.problems = problems;
  }
}

const ACTION_ROUTES: Record<ResourceAction, { method: Method; suffix: string }> = {
  index: { method: 'GET', suffix: '' },
  new: { method: 'GET', suffix: '/new' },
  create: { method: 'POST', suffix: '' },
  show: { method: 'GET', suffix: '/:externalId' },
  edit: { method: 'GET', suffix: '/:externalId/edit' },
  update: { method: 'PATCH', suffix: '/:externalId' },
  destroy: { method: 'DELETE', suffix: '/:externalId' },
};

const OPTION_NAMES = new Set([
  'controller',
  'model',
  'scope',
  'version',
  'idempotent',
  'rateLimit',
  'roles',
  'operation',
]);
const MUTATING = new Set<Method>(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Core paths never covered by idempotency: the account paths. */
const NEVER_IDEMPOTENT: ReadonlySet<string> = new Set(Object.values(ACCOUNT_PATHS));

const scopePath = (scope: string | undefined): string => {
  const trimmed = (scope ?? '').replace(/^\/+|\/+$/g, '');
  return trimmed ? `/${trimmed}` : '';
};

/** The actions a route key routes: those of `resources`/`crud`, or a single route's controller action. */
function routedActions(key: string, options: RouteOptions): readonly string[] {
  const kind = /^(resources|crud)\s/.exec(key.trim())?.[1];
  if (kind) return kind === 'resources' ? RESOURCE_ACTIONS : CRUD_ACTIONS;
  const action = /\.([a-zA-Z_]\w*)$/.exec(typeof options.controller === 'string' ? options.controller : '')?.[1];
  return action ? [action] : [];
}

function optionProblems(key: string, options: RouteOptions): string[] {
  const problems: string[] = [];
  const at = (text: string) => problems.push(`${key}: ${text}`);
  if (typeof options !== 'object' || options === null) return [`${key}: options must be an object`];
  for (const name of Object.keys(options)) if (!OPTION_NAMES.has(name)) at(`unknown option "${name}"`);
  if (options.scope !== undefined && (typeof options.scope !== 'string' || !/^[\w\-/]*$/.test(options.scope)))
    at('scope must be a path such as api/v1');
  if (options.version !== undefined && (typeof options.version !== 'string' || !/^v\d+$/.test(options.version)))
    at('version must look like v1');
  if (options.idempotent !== undefined && typeof options.idempotent !== 'boolean')
    at('idempotent must be true or false');
  const limit = options.rateLimit;
  if (
    limit !== undefined &&
    !(Number.isInteger(limit?.max) && limit.max > 0 && Number.isFinite(limit?.windowMs) && limit.windowMs > 0)
  ) {
    at('rateLimit must be {windowMs, max} with positive numbers');
  }
  for (const problem of roleRuleProblems(options.roles, routedActions(key, options))) at(problem);
  const named = typeof options.operation === 'object' ? Object.values(options.operation ?? {}) : [options.operation];
  for (const operation of named)
    if (operation !== undefined && !OPERATIONS.includes(operation))
      at(`operation "${String(operation)}" is not one of the permission table's`);
  return problems;
}

/** The operation `action` runs under a declaration's `operation` option. */
export const operationOf = (option: RouteOptions['operation'], action: string): Operation | undefined =>
  typeof option === 'object' ? option[action] : option;

/**
 * Compiles the route table, listing every problem at once. `resources`/`crud` routes are
 * ordered so `/<name>/new` is matched before `/<name>/:externalId`.
 */
export function compileRoutes(table: RouteTable): RouteMap {
  const problems: string[] = [];
  const routes: CompiledRoute[] = [];
  const resources = new Map<string, ResourceRoutes>();
  for (const [key, options] of Object.entries(table)) {
    problems.push(...optionProblems(key, options));
    const prefix = scopePath(options?.scope);
    const resource = /^(resources|crud)\s+([a-z][a-z0-9-]*)$/.exec(key.trim());
    const single = /^(GET|POST|PUT|PATCH|DELETE)\s+(\/[\w\-/:.]*)$/.exec(key.trim());
    if (resource) {
      const kind = resource[1] as 'resources' | 'crud';
      const name = resource[2];
      if (resources.has(name)) problems.push(`${key}: the resource "${name}" is declared twice`);
      const actions = new Set<ResourceAction>(kind === 'resources' ? RESOURCE_ACTIONS : CRUD_ACTIONS);
      const base = `${prefix}/${name}`;
      const controller = options?.controller ?? name;
      for (const action of actions) {
        const { method, suffix } = ACTION_ROUTES[action];
        routes.push({
          key,
          kind,
          name,
          action,
          method,
          path: base + suffix,
          controller,
          model: options?.model,
          version: options?.version,
          idempotent: MUTATING.has(method) && options?.idempotent !== false,
          rateLimit: options?.rateLimit,
          roles: options?.roles,
          operation: operationOf(options?.operation, action),
        });
      }
      const encoded = (externalId: string) => `${base}/${encodeURIComponent(externalId)}`;
      resources.set(name, {
        name,
        kind,
        model: options?.model,
        actions,
        roles: options?.roles,
        operation: options?.operation,
        collection: base,
        newForm: `${base}/new`,
        item: encoded,
        edit: (externalId) => `${encoded(externalId)}/edit`,
      });
    } else if (single) {
      const method = single[1] as Method;
      const path = prefix + single[2];
      const target = /^([a-z][\w-]*)\.([a-zA-Z_]\w*)$/.exec(options?.controller ?? '');
      if (!target) problems.push(`${key}: controller must name "<controller>.<action>"`);
      routes.push({
        key,
        kind: 'single',
        name: target?.[1] ?? '',
        action: target?.[2] ?? '',
        method,
        path,
        controller: target?.[1] ?? '',
        model: options?.model,
        version: options?.version,
        idempotent: MUTATING.has(method) && options?.idempotent !== false && !NEVER_IDEMPOTENT.has(path),
        rateLimit: options?.rateLimit,
        roles: options?.roles,
        operation: operationOf(options?.operation, target?.[2] ?? ''),
      });
    } else {
      problems.push(`${key}: a route key is "resources <name>", "crud <name>" or "<METHOD> /path"`);
    }
  }
  if (problems.length > 0) throw new RouteTableError(problems);
  // static segments first: /posts/new before /posts/:externalId
  const order = (route: CompiledRoute) => (route.path.includes(':') ? 1 : 0);
  routes.sort((a, b) => order(a) - order(b));
  return { routes, resources };
}

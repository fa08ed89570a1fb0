/**
 * What every resolver receives as its third argument, made once per request: the caller
 * (`principal`, set by the `user` slot; resolvers apply the same tenant scope and roles as the
 * REST routes), the request id, the application's models, the roles and policies of the models
 * (`authorize`, `visible`), and the request's batch loaders.
 */
import type { Logger } from '../../shared/log/logger.ts';
import type { ModelRecord, Models } from '../model-framework/data/model.ts';
import type { Principal } from '../model-framework/routing/roles.ts';
import { createLoaders, type Loaders } from './batch.ts';
import { authorizeCollection, authorizeRecord, visibleRecords } from '../model-framework/data/policy.ts';
import { guardModels } from '../model-framework/data/guarded-models.ts';
import type { PolicyAction } from '../model-framework/data/types.ts';
import { assertModelRoles } from '../model-framework/routing/model-roles.ts';
import type { ResourceRoutes } from '../model-framework/routing/table.ts';

/** What the transport knows of the request (HTTP or in process). */
export type RequestInfo = {
  principal?: Principal;
  requestId?: string;
  /** Aborted when the request timed out (`requestTimeout`). */
  signal?: AbortSignal;
};

/** A type (not an interface): graphql-http wants a context that is a plain record. */
export type GraphqlContext = RequestInfo & {
  /**
   * The application's models; their reads and writes apply the tenant rules for `principal`
   * (api/model-framework/data/guarded-models.ts), whether or not the resolver asked `authorize`:
   * a record the caller may not see is not found, listed nor counted.
   */
  models: Models;
  log: Logger;
  loaders: Loaders;
  /**
   * The record of model `model` whose internal id (a foreign key as records hold it) or
   * `externalId` is `key`, or null (also for one the caller may not see, as `models` reads). Every `load` of one model during one level of the result is
   * answered by one statement (`where id = any(…) or external_id = any(…)`).
   */
  load(model: string, key: string | number | bigint | null | undefined): Promise<ModelRecord | null>;
  /**
   * The roles the model's routes declare for `action`, then its policy, for the request's
   * principal, as REST applies them (api/model-framework/routing/model-roles.ts,
   * api/model-framework/data/policy.ts): throws 401 `APP_UNAUTHENTICATED` or 403 `APP_FORBIDDEN`
   * when the roles refuse, 404 `APP_RECORD_NOT_FOUND` for a record the policy hides, 403
   * `APP_FORBIDDEN` for another refused action (with a record), or for a refused collection
   * action (`create` with its input). A model no route serves has no roles: its policy decides.
   */
  authorize(model: string, action: PolicyAction, record?: object): Promise<void>;
  /**
   * The records the principal may see (the policy's `show`), in their order; throws the roles'
   * refusal when the model's routes refuse it `index` or `show`.
   */
  visible<T extends object>(model: string, records: readonly T[]): Promise<T[]>;
};

/** The context of one request. */
export function createContext(
  deps: { models: Models; log: Logger; resources?: ReadonlyMap<string, ResourceRoutes> },
  request: RequestInfo = {},
): GraphqlContext {
  const loaders = createLoaders();
  const resources = deps.resources ?? new Map<string, ResourceRoutes>();
  /** The model named `name`, once its routes' roles allow each of `actions`. */
  const modelFor = (name: string, ...actions: PolicyAction[]) => {
    const model = deps.models.get(name);
    if (!model) throw new Error(`no model named ${name}`);
    for (const action of actions) assertModelRoles(model, resources, action, request.principal);
    return model;
  };
  const models = guardModels(deps.models, () => request.principal);
  return {
    ...request,
    async authorize(name, action, record) {
      const model = modelFor(name, action);
      if (record && action !== 'create') await authorizeRecord(model, request.principal, action, record);
      else await authorizeCollection(model, request.principal, action, record);
    },
    visible: async (name, records) => visibleRecords(modelFor(name, 'index', 'show'), request.principal, records),
    models,
    log: deps.log,
    loaders,
    async load(name, key) {
      if (key === null || key === undefined) return null;
      const model = models.get(name);
      if (!model) throw new Error(`load(): no model named ${name}`);
      const loader = loaders.get<string, ModelRecord>(`model:${name}`, async (keys) => {
        const records = await model.findMany(keys);
        const found = new Map<string, ModelRecord>();
        for (const record of records) {
          found.set(record.id, record);
          found.set(record.externalId, record);
        }
        return found;
      });
      return (await loader.load(String(key))) ?? null;
    },
  };
}

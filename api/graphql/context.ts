/**
 * What every resolver receives as its third argument, made once per request: the caller
 * (`principal`, set by the `user` slot; resolvers apply the same tenant scope and roles as the
 * REST routes), the request id, the application's models, and the request's batch loaders.
 */
import type { Logger } from '../../shared/log/logger.ts';
import type { ModelRecord, Models } from '../data/model.ts';
import type { CommitDeadline } from '../../shared/db/commit-deadline.ts';
import type { Principal } from '../routing/roles.ts';
import { createLoaders, type Loaders } from './batch.ts';

/** What the transport knows of the request (HTTP or in process). */
export type RequestInfo = {
  principal?: Principal;
  requestId?: string;
  /** Aborted when the request timed out (`requestTimeout`). */
  signal?: AbortSignal;
  /** The request's deadline: writes that would commit after a timeout roll back (shared/db/commit-deadline.ts). */
  deadline?: CommitDeadline;
};

/** A type (not an interface): graphql-http wants a context that is a plain record. */
export type GraphqlContext = RequestInfo & {
  models: Models;
  log: Logger;
  loaders: Loaders;
  /**
   * The record of model `model` whose internal id (a foreign key as records hold it) or
   * `externalId` is `key`, or null. Every `load` of one model during one level of the result is
   * answered by one statement (`where id = any(…) or external_id = any(…)`).
   */
  load(model: string, key: string | number | bigint | null | undefined): Promise<ModelRecord | null>;
};

/** The context of one request. */
export function createContext(deps: { models: Models; log: Logger }, request: RequestInfo = {}): GraphqlContext {
  const loaders = createLoaders();
  return {
    ...request,
    models: deps.models,
    log: deps.log,
    loaders,
    async load(name, key) {
      if (key === null || key === undefined) return null;
      const model = deps.models.get(name);
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

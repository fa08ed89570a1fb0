/**
 * The GraphQL service of a web process (docs/graphql.md): the schema
 * merged from every contribution, the HTTP handler and `graphql.run`. When the merged schema
 * does not compile the service is off: one error is printed naming the sources involved, the
 * path answers 503 (serve.ts), `run` answers that error, and everything else keeps working;
 * it comes back once the schema is fixed and the process restarts.
 *
 * | State | Trigger                        | Next                                                     |
 * |-------|--------------------------------|----------------------------------------------------------|
 * | on    | merged schema fails to compile | off (error printed; everything else keeps working)       |
 */
import { execute, GraphQLError, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { Handler } from 'graphql-http';
import type { Config } from '../../shared/config/index.ts';
import type { Logger } from '../../shared/log/logger.ts';
import type { Models } from '../model-framework/data/model.ts';
import type { ResourceRoutes } from '../model-framework/routing/table.ts';
import type { Contribution } from './contribution.ts';
import { createContext, type GraphqlContext, type RequestInfo } from './context.ts';
import { createGraphqlHandler } from './handler.ts';
import type { GraphqlLimits } from './limits.ts';
import { maskResult } from './masking.ts';
import { createPreparer, operationType, type OperationRules } from './operation.ts';
import { chooseOperation, codeVariableErrors } from './protocol-codes.ts';
import { GraphqlSchemaError, assembleSchema } from './schema.ts';

export const GRAPHQL_UNAVAILABLE = 'APP_GRAPHQL_UNAVAILABLE';

export type GraphqlSettings = Exclude<Config['graphql'], false>;

export interface GraphqlService {
  /** Whether the schema compiled and the service answers. */
  readonly on: boolean;
  /** Why the service is off (a short sentence a client may see; the log has every problem). */
  readonly reason: string | undefined;
  /** The sources (models, modules) a compile failure involves. */
  readonly sources: readonly string[];
  readonly schema: GraphQLSchema | undefined;
  /** The served path (`graphql.path`). */
  readonly path: string;
  /** The GraphQL-over-HTTP handler; undefined while off. */
  readonly handler: Handler<unknown, RequestInfo> | undefined;
  /**
   * Runs a query in process (`graphql.run`): `{data, errors}`. GraphQL's validation and
   * the masking of internal errors apply; the limits and the introspection switch do not
   * (the caller is the application itself). `context` is laid over the resolvers' context
   * (e.g. `{principal}`).
   */
  run(
    query: string,
    variables?: Record<string, unknown> | null,
    context?: RequestInfo & Record<string, unknown>,
  ): Promise<ExecutionResult>;
  /** `'mutation'`, `'query'`… of a request body, or undefined (serve.ts: idempotency keys apply to mutations). */
  operationType(request: { query?: unknown; operationName?: unknown }): string | undefined;
}

export interface GraphqlServiceDeps {
  config: Pick<Config, 'env' | 'api'> & { graphql: GraphqlSettings };
  log: Logger;
  models: Models;
  /** The application's resources/crud declarations: their roles reach `context.authorize` and `context.visible`. */
  resources?: ReadonlyMap<string, ResourceRoutes>;
  contributions: readonly Contribution[];
}

/** Builds the service; never throws for a bad schema (the service is then off). */
export function createGraphqlService(deps: GraphqlServiceDeps): GraphqlService {
  const { config, log, models, resources } = deps;
  const settings = config.graphql;
  const limits: GraphqlLimits = {
    maxBytes: settings.maxBytes,
    maxTokens: settings.maxTokens,
    maxDepth: settings.maxDepth,
    maxAliases: settings.maxAliases,
    maxCost: settings.maxCost,
  };
  const exposeInternals = config.env === 'development';
  const defaultListSize = config.api.perPage;
  const context = (request: RequestInfo): GraphqlContext => createContext({ models, log, resources }, request);

  let schema: GraphQLSchema | undefined;
  let reason: string | undefined;
  let sources: readonly string[] = [];
  try {
    schema = assembleSchema(deps.contributions);
  } catch (error) {
    const failure =
      error instanceof GraphqlSchemaError ? error : new GraphqlSchemaError([(error as Error).message], []);
    sources = failure.sources;
    reason = `its schema does not compile${sources.length > 0 ? ` (${sources.join(', ')})` : ''}; the server log says why`;
    log.error({ sources: failure.sources, problems: failure.problems }, `GraphQL service off: ${failure.message}`);
  }

  const maxListSizes = new Map(
    deps.contributions.flatMap((contribution) => Object.entries(contribution.listSizes ?? {})),
  );
  const httpRules: OperationRules = { limits, introspection: settings.introspection, defaultListSize, maxListSizes };
  const handler = schema
    ? createGraphqlHandler({ schema, rules: httpRules, context, exposeInternals, log })
    : undefined;
  const prepareInProcess = schema ? createPreparer(schema, { introspection: true, defaultListSize }) : undefined;

  return {
    on: schema !== undefined,
    reason,
    sources,
    schema,
    path: settings.path,
    handler,
    async run(query, variables, extra = {}) {
      if (!schema || !prepareInProcess)
        return {
          errors: [
            new GraphQLError(`the GraphQL service is off: ${reason}`, { extensions: { code: GRAPHQL_UNAVAILABLE } }),
          ],
        };
      const prepared = prepareInProcess({ query, variables });
      if (!prepared.ok) return { errors: [...prepared.errors] };
      const chosen = chooseOperation(prepared.document, undefined);
      if (!chosen.ok) return { errors: [chosen.error] };
      const result = await execute({
        schema,
        document: prepared.document,
        variableValues: variables ?? undefined,
        contextValue: { ...context(extra), ...extra },
      });
      return maskResult(codeVariableErrors(result), { exposeInternals, requestId: extra.requestId, log });
    },
    operationType: (request) => operationType(request as { query?: string }, limits.maxTokens),
  };
}

/**
 * Mounts GraphQL in the web process: the `graphql` slot (api/pipeline.ts) serves
 * `graphql.path`, and the service is built once the application's models are (at start, with
 * the API). `graphql: false` mounts nothing (the path is then an ordinary 404).
 */
import type { Config } from '../../shared/config/index.ts';
import type { Sql } from '../../shared/db/connect.ts';
import type { Logger } from '../../shared/log/logger.ts';
import type { WebhookDeps } from '../../shared/webhooks/deps.ts';
import { createEndpointCache } from '../../shared/webhooks/endpoints/cache.ts';
import type { Models } from '../model-framework/data/model.ts';
import type { Module } from '../lifecycle.ts';
import type { Pipeline } from '../pipeline.ts';
import type { CompiledRoute, ResourceRoutes } from '../model-framework/routing/table.ts';
import { modelContributions, type Contribution } from './contribution.ts';
import { graphiql, servesGraphiql } from './graphiql.ts';
import { serveGraphql } from './serve.ts';
import { createGraphqlService, type GraphqlService } from './service.ts';
import { serviceContributions } from './webhooks/index.ts';

/** The pseudo-route of the GraphQL path: what the route slots (idempotency…) see for a mutation. */
export function graphqlRoute(path: string): CompiledRoute {
  return {
    key: `POST ${path}`,
    kind: 'single',
    name: 'graphql',
    action: 'mutation',
    method: 'POST',
    path,
    controller: 'graphql',
    model: undefined,
    version: undefined,
    idempotent: true,
    rateLimit: undefined,
    roles: undefined,
  };
}

export interface GraphqlMount {
  /**
   * Builds the service over the application's models with every contribution; replaces the
   * previous one. `resources`, the route table's resources/crud declarations, whose roles the
   * models' resolvers apply through `context.authorize` and `context.visible`.
   */
  build(models: Models, resources?: ReadonlyMap<string, ResourceRoutes>): GraphqlService;
  /** The service, once built. */
  readonly service: GraphqlService | undefined;
  /** Stops what the mount made (the endpoint cache's LISTEN) at shutdown. */
  readonly module: Module;
}

export interface GraphqlMountDeps {
  config: Config;
  log: Logger;
  sql: Sql;
  /** The webhook core's dependencies to share (endpoint cache included); default: made here, with their own cache. */
  webhooks?: WebhookDeps;
  /**
   * More contributions, after the models' and the service's own (scalars, webhooks). `models` are
   * given to build their types from, unguarded: a resolver reads and writes through its context's
   * `models` and `load`, which apply the tenant rules for the request's caller (guarded-models.ts).
   */
  contributions?: (models: Models) => readonly Contribution[];
}

/** Plugs the `graphql` slot; undefined when `config.graphql` is false. */
export function plugGraphql(
  pipeline: Pick<Pipeline, 'use' | 'routeStage'>,
  deps: GraphqlMountDeps,
): GraphqlMount | undefined {
  const { config, log } = deps;
  const settings = config.graphql;
  if (settings === false) return undefined;
  let service: GraphqlService | undefined;
  const cache = deps.webhooks ? undefined : createEndpointCache({ config, sql: deps.sql, log });
  const webhooks: WebhookDeps = deps.webhooks ?? { config, sql: deps.sql, log, cache };
  if (servesGraphiql(config)) pipeline.use('graphql', graphiql({ path: settings.path }));
  pipeline.use(
    'graphql',
    serveGraphql({
      path: settings.path,
      service: () => service,
      routeStage: pipeline.routeStage(graphqlRoute(settings.path)),
    }),
  );
  return {
    build(models, resources) {
      const contributions = [
        ...modelContributions(models),
        ...serviceContributions({ ...webhooks, config }),
        ...(deps.contributions?.(models) ?? []),
      ];
      service = createGraphqlService({
        config: { env: config.env, api: config.api, graphql: settings },
        log,
        models,
        resources,
        contributions,
      });
      return service;
    },
    get service() {
      return service;
    },
    module: { name: 'graphql', stop: async () => cache?.close() },
  };
}

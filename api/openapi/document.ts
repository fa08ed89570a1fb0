/**
 * The OpenAPI 3.1 description of the application (docs/http-api.md "OpenAPI description"; CLI `openapi`): the
 * routes of the compiled table, the model schemas and HAL envelopes, the problem answers, and
 * the endpoints the service mounts itself. A pure function of the config and the built API.
 */
import { readFileSync } from 'node:fs';
import type { Config } from '../../shared/config/index.ts';
import type { Model } from '../model-framework/data/model.ts';
import type { Api } from '../model-framework/routing/api.ts';
import type { Action } from '../model-framework/routing/controller.ts';
import type { CompiledRoute } from '../model-framework/routing/table.ts';
import { declaredQuery, type AcceptedQuery } from '../model-framework/routing/query-parameters.ts';
import { sharedComponents, type Json } from './components.ts';
import { graphqlPath, healthPaths } from './fixed.ts';
import { allModelSchemas } from './models.ts';
import { routePaths } from './paths.ts';
import { WEBHOOK_SCHEMAS } from './webhooks.ts';
import { TOKEN_SCHEMAS } from './tokens.ts';
import { eventWebhooks } from './event-webhooks.ts';
import type { EventType } from '../../shared/webhooks/event-types/index.ts';
import { ACCOUNT_SCHEMAS, accountPaths } from './accounts.ts';

const PACKAGE = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  name: string;
  version: string;
  description?: string;
};

/** What the document is made from: the resolved config and the API as the web process builds it. */
export interface DocumentInput {
  config: Pick<Config, 'api' | 'rateLimit' | 'graphql'>;
  api: Pick<Api, 'models' | 'routeMap' | 'mounted'>;
  /** The event-type catalog, described as the `webhooks` object (absent: no `webhooks`). */
  eventTypes?: readonly EventType[];
}

/**
 * Each route of the table with the model it serves (the one `buildApi` picked, else the one
 * named by its collection) and the query parameters its action declared.
 */
function routesWithModels(
  api: DocumentInput['api'],
): Array<{ route: CompiledRoute; model: Model | undefined; accepted: AcceptedQuery | undefined }> {
  const picked = new Map(api.mounted.map((mounted) => [mounted.route, mounted.model]));
  const actions = new Map(api.mounted.map((mounted) => [mounted.route, mounted.action]));
  const queryOf = (action: Action | undefined) => (action ? declaredQuery(action) : undefined);
  return api.routeMap.routes.map((route) => ({
    route,
    accepted: queryOf(actions.get(route)),
    model: picked.has(route)
      ? picked.get(route)
      : route.model
        ? api.models.get(route.model)
        : route.kind === 'single'
          ? undefined
          : api.models.byCollection(route.name),
  }));
}

/** The tags the route operations use, in order of first use (health and GraphQL excepted). */
function routeTags(paths: Json): Json[] {
  const names = new Set<string>();
  for (const item of Object.values(paths) as Json[]) {
    for (const operation of Object.values(item) as Json[])
      for (const tag of (operation.tags as string[] | undefined) ?? []) names.add(tag);
  }
  names.delete('health');
  names.delete('graphql');
  names.delete('accounts');
  return [...names].map((name) => ({ name }));
}

/** The OpenAPI 3.1.0 document (a plain JSON-serialisable object). */
export function openapiDocument(input: DocumentInput): Json {
  const { config, api } = input;
  const options = { idempotency: config.api.idempotency !== false, rateLimited: config.rateLimit !== false };
  const components = sharedComponents();
  components.schemas = {
    ...components.schemas,
    ...WEBHOOK_SCHEMAS,
    ...TOKEN_SCHEMAS,
    ...ACCOUNT_SCHEMAS,
    ...allModelSchemas(api.models.all().map((model) => model.shape)),
  };
  const paths: Json = {
    ...healthPaths(),
    ...accountPaths(),
    ...(config.graphql ? graphqlPath(config.graphql.path, options) : {}),
    ...routePaths(routesWithModels(api), options),
  };
  return {
    openapi: '3.1.0',
    info: {
      title: PACKAGE.name,
      version: PACKAGE.version,
      ...(PACKAGE.description ? { description: PACKAGE.description } : {}),
    },
    servers: [{ url: '/' }],
    tags: [
      { name: 'health', description: 'Liveness and readiness; no credentials.' },
      {
        name: 'accounts',
        description:
          'Sign-in, sign-out, sign-up and passwords: forms for browsers, JSON for JSON clients; the session cookie.',
      },
      ...(config.graphql ? [{ name: 'graphql', description: 'GraphQL over HTTP.' }] : []),
      ...routeTags(paths),
    ],
    paths,
    ...(input.eventTypes && input.eventTypes.length > 0 ? { webhooks: eventWebhooks(input.eventTypes) } : {}),
    components,
  };
}

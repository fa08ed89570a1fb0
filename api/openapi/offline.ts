/**
 * The API built the way the web process builds it (discovery of `api/model-framework/models/`,
 * `api/model-framework/controllers/`, `api/model-framework/routes.ts`, the product's APIs mounted
 * beside them; `buildApi`), without a database or a server: the models get a client that refuses
 * every query, and each route an empty middleware stage.
 * Enough to describe the routes; never to serve them.
 */
import type { Middleware } from 'koa';
import type { Sql } from '../../shared/db/connect.ts';
import { buildApi, type Api, type ApiDefinition } from '../model-framework/routing/api.ts';
import { discoverApi, type ApiLocations } from '../model-framework/routing/discover.ts';
import type { WebhookDeps } from '../../shared/webhooks/deps.ts';
import { withProductApis } from '../product-apis.ts';
import type { TokenListingDeps } from '../../shared/tokens/api-tokens.ts';

/** A database client that refuses to be used (describing the API runs no query). */
const noDatabase = new Proxy(() => undefined, {
  apply() {
    throw new Error('the OpenAPI description runs no query');
  },
  get(_target, name) {
    if (name === 'then') return undefined;
    return () => {
      throw new Error(`the OpenAPI description runs no query (sql.${String(name)})`);
    };
  },
}) as unknown as Sql;

const passThrough: Middleware = (_ctx, next) => next();

/** Dependencies for controllers that are described, never run. */
const noWebhooks = { sql: noDatabase } as unknown as WebhookDeps;
const noTokens = { sql: noDatabase } as unknown as TokenListingDeps;

/** `buildApi` of a definition (with the product's APIs mounted) without a database; the route stages do nothing. */
export function buildApiOffline(definition: ApiDefinition): Api {
  return buildApi(
    { sql: noDatabase, maxPageOffset: Number.POSITIVE_INFINITY }, // described, never paged
    withProductApis(definition, { webhooks: noWebhooks, tokens: noTokens }),
    () => passThrough,
  );
}

/** Discovers the application (as the web process does at start) and builds it without a database. */
export async function discoverApiOffline(locations?: ApiLocations): Promise<Api> {
  return buildApiOffline(await discoverApi(locations));
}

/**
 * The OpenAPI description's query parameters are the ones each action accepts: for every route
 * whose action declares them (the product's APIs, the generic model API), the operation lists
 * exactly the accepted set, each product parameter with its description, and 422 for the refusal
 * of any other; no documented parameter is left out of an action's declaration.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openapiDocument } from '../../../api/openapi/document.ts';
import { buildApiOffline } from '../../../api/openapi/offline.ts';
import { openapiPath } from '../../../api/openapi/paths.ts';
import { TOKEN_OPERATIONS } from '../../../api/openapi/tokens.ts';
import { WEBHOOK_OPERATIONS } from '../../../api/openapi/webhooks.ts';
import { discoverApi } from '../../../api/model-framework/routing/discover.ts';
import { acceptedNames, declaredQuery } from '../../../api/model-framework/routing/query-parameters.ts';
import { resolveConfig } from '../../../shared/config/index.ts';
import { MODELS } from '../fixtures/models.ts';
import type { RouteTable } from '../../../api/model-framework/routing/table.ts';

/** The test models' routes (as test/api/fixtures/app.ts, which starts a database this test does not need). */
const ROUTES: RouteTable = {
  'resources posts': { scope: 'api/v1', version: 'v1', roles: { destroy: ['admin'] } },
  'crud authors': { scope: 'api/v1' },
};

interface Parameter {
  $ref?: string;
  name?: string;
  in?: string;
  description?: string;
}
interface Doc {
  paths: Record<string, Record<string, { parameters?: Parameter[]; responses: Record<string, unknown> }>>;
  components: { parameters: Record<string, Parameter> };
}

const own = await discoverApi();
const api = buildApiOffline({ models: MODELS, routes: { ...own.routes, ...ROUTES }, controllers: own.controllers });
const config = resolveConfig({ env: { NODE_ENV: 'production' } }).config;
const doc = openapiDocument({ config, api }) as unknown as Doc;

/** The query parameters of an operation, `$ref`s resolved. */
function queryOf(path: string, method: string): Parameter[] {
  const operation = doc.paths[openapiPath(path)]?.[method.toLowerCase()];
  assert.ok(operation, `${method} ${path} is described`);
  return (operation.parameters ?? [])
    .map((parameter) =>
      parameter.$ref ? doc.components.parameters[parameter.$ref.replace('#/components/parameters/', '')] : parameter,
    )
    .filter((parameter) => parameter.in === 'query');
}

describe('openapi query parameters', () => {
  it('every route of the product and model APIs declares its query, and the document lists exactly that set', () => {
    let checked = 0;
    for (const { route, action } of api.mounted) {
      const declared = declaredQuery(action);
      assert.ok(declared, `${route.method} ${route.path} declares its query parameters`);
      const listed = queryOf(route.path, route.method).map((parameter) => parameter.name);
      assert.deepEqual(
        [...listed].sort(),
        [...acceptedNames(declared)].sort(),
        `${route.method} ${route.path}: the document's query parameters are those the route accepts`,
      );
      assert.ok(
        doc.paths[openapiPath(route.path)][route.method.toLowerCase()].responses['422'],
        `${route.method} ${route.path} lists 422 for a parameter it refuses`,
      );
      checked += 1;
    }
    assert.ok(checked >= 30, `${checked} routes checked`);
  });

  it('every query parameter is described', () => {
    for (const { route } of api.mounted) {
      for (const parameter of queryOf(route.path, route.method))
        assert.ok(parameter.description, `${route.method} ${route.path}: "${parameter.name}" has a description`);
    }
  });

  it("no documented parameter is missing from its action's declaration", () => {
    const documented = { ...WEBHOOK_OPERATIONS, ...TOKEN_OPERATIONS };
    for (const { route, action } of api.mounted) {
      const described = documented[`${route.controller}.${route.action}`]?.query ?? [];
      const declared = declaredQuery(action)?.parameters ?? [];
      assert.deepEqual(
        described.map((parameter) => parameter.name),
        [...declared],
        `${route.controller}.${route.action}: documented and declared parameters, in order`,
      );
    }
  });
});

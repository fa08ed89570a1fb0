/**
 * docs/webhooks-api.md, "Routes and their links", is the table a client writes its calls from: each
 * row's query parameters and body fields must be those the route takes, or a client sends a filter
 * the route refuses (422 `APP_QUERY_PARAMETER_UNKNOWN`) or a field it refuses
 * (`APP_BODY_FIELD_UNKNOWN`), or never learns of one it has. The OpenAPI description serves as the
 * reference: its own tests (test/api/openapi) hold it to what each route declares and accepts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openapiDocument } from '../../api/openapi/document.ts';
import { discoverApiOffline } from '../../api/openapi/offline.ts';
import { resolveConfig } from '../../shared/config/index.ts';
import { ROOT } from '../helpers/processes.ts';

interface Parameter {
  $ref?: string;
  name?: string;
  in?: string;
}
interface Schema {
  $ref?: string;
  properties?: Record<string, unknown>;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: { parameters: Record<string, Parameter>; schemas: Record<string, Schema> };
}

const config = resolveConfig({ env: { NODE_ENV: 'production' } }).config;
const doc = openapiDocument({ config, api: await discoverApiOffline() }) as unknown as Doc;
const PREFIX = '/api/v1';
/** A path with its parameters unnamed, so `/webhooks/:id` and `/webhooks/{externalId}` compare equal. */
const shape = (path: string) => path.replace(/:\w+|\{\w+\}/g, '{}');
const OPERATIONS = new Map(
  Object.entries(doc.paths)
    .filter(([path]) => path.startsWith(`${PREFIX}/`))
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => [
        `${method.toUpperCase()} ${shape(path.slice(PREFIX.length))}`,
        operation,
      ]),
    ),
);

/** What the document says a route takes: its query parameters (paging left out) and body fields. */
function takes(operation: Operation): { query: string[]; body: string[] } {
  const query = (operation.parameters ?? [])
    .map((parameter) =>
      parameter.$ref ? doc.components.parameters[parameter.$ref.replace('#/components/parameters/', '')] : parameter,
    )
    .filter((parameter) => parameter.in === 'query' && parameter.name !== 'page' && parameter.name !== 'per_page')
    .map((parameter) => String(parameter.name));
  let schema = operation.requestBody?.content['application/json']?.schema;
  if (schema?.$ref) schema = doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')];
  return { query, body: Object.keys(schema?.properties ?? {}) };
}

/** The rows of the routes table: route, and its "Body / query" cell. */
const page = readFileSync(join(ROOT, 'docs/webhooks-api.md'), 'utf8');
const ROWS = [...page.matchAll(/^\| `(GET|POST|PATCH|DELETE) (\/[^`]*)` \|[^|]*\|((?:[^|\\]|\\.)*)\|/gm)].map(
  ([, method, path, cell]) => ({ route: `${method} ${path}`, key: `${method} ${shape(path)}`, cell }),
);

describe('docs/webhooks-api.md routes table', () => {
  it('has a row for every webhook route the API serves, and none for a route it lacks', () => {
    const served = [...OPERATIONS.keys()].filter((key) => !key.includes('/tokens')).sort();
    assert.ok(served.length >= 18, `${served.length} webhook routes`);
    assert.deepEqual(ROWS.map((row) => row.key).sort(), served);
  });

  it("names exactly the query parameters of each listing, and each write's body fields", () => {
    const wrong: string[] = [];
    for (const { route, key, cell } of ROWS) {
      const operation = OPERATIONS.get(key);
      if (!operation) continue; // the test above names it
      const { query, body } = takes(operation);
      if (route.startsWith('GET ')) {
        // a parameter is a code span naming it, alone or with a value (`status=pending,…`)
        const named = [...cell.matchAll(/`([a-z_]+)(?:=[^`]*)?`/g)].map((match) => match[1]);
        if (named.join() !== query.join()) wrong.push(`${route}: names ${named.join(', ')}; takes ${query.join(', ')}`);
      } else {
        // the body is the `{field, field?, …}` the cell starts with, and those it offers instead ("or {…}")
        const named = [...cell.matchAll(/(?:^\s*|\bor )`\{([^}`]*)\}`/g)].flatMap((match) =>
          match[1].split(',').map((field) => field.trim().replace(/\?$/, '')),
        );
        if ([...new Set(named)].sort().join() !== [...body].sort().join())
          wrong.push(`${route}: names {${named.join(', ')}}; takes {${body.join(', ')}}`);
      }
    }
    assert.deepEqual(wrong, []);
  });
});

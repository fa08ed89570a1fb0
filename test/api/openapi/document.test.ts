/**
 * The OpenAPI description (api/openapi/): the service's own routes plus the test models and a
 * hand-written single route, built as the web process builds them but without a database.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { openapiDocument } from '../../../api/openapi/document.ts';
import { buildApiOffline } from '../../../api/openapi/offline.ts';
import { openapiPath } from '../../../api/openapi/paths.ts';
import type { Api } from '../../../api/model-framework/routing/api.ts';
import { discoverApi } from '../../../api/model-framework/routing/discover.ts';
import type { RouteTable } from '../../../api/model-framework/routing/table.ts';
import { resolveConfig, type Config } from '../../../shared/config/index.ts';
import { MODELS } from '../fixtures/models.ts';

/** The test route table (as test/api/fixtures/app.ts), plus a limited single route of a hand-written controller. */
const TEST_ROUTES: RouteTable = {
  'resources posts': {
    scope: 'api/v1',
    version: 'v1',
    roles: { update: ['editor', 'admin'], edit: ['editor', 'admin'], destroy: ['admin'] },
  },
  'crud authors': { scope: 'api/v1' },
  'POST /status/:name/ping': { controller: 'status.ping', rateLimit: { windowMs: 60_000, max: 5 } },
};

type Doc = {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<
      string,
      {
        properties?: Record<string, { type?: unknown; format?: string; minimum?: number; maximum?: number }>;
        required?: string[];
        additionalProperties?: unknown;
      }
    >;
    securitySchemes: Record<string, unknown>;
  };
};
type Operation = {
  operationId: string;
  parameters?: Array<{ $ref?: string; name?: string; in?: string }>;
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
  responses: Record<
    string,
    { $ref?: string; headers?: Record<string, unknown>; content?: Record<string, { schema: { $ref?: string } }> }
  >;
  security?: unknown[];
};

const configOf = (env: Record<string, string> = {}): Config =>
  resolveConfig({ env: { NODE_ENV: 'production', ...env } }).config;

async function testApi(): Promise<Api> {
  const own = await discoverApi();
  return buildApiOffline({
    models: MODELS,
    routes: { ...own.routes, ...TEST_ROUTES },
    controllers: { ...own.controllers, status: { ping: async () => undefined } },
  });
}

const api = await testApi();
const documentOf = (config: Config = configOf()) => openapiDocument({ config, api }) as unknown as Doc;
const operation = (doc: Doc, path: string, method: string): Operation => {
  const found = doc.paths[path]?.[method];
  assert.ok(found, `${method.toUpperCase()} ${path} is described`);
  return found;
};
const statuses = (op: Operation) => Object.keys(op.responses).sort();

/** Every `$ref` of a value, with where it was found. */
function refsOf(value: unknown, at = '#'): Array<{ ref: string; at: string }> {
  if (Array.isArray(value)) return value.flatMap((item, index) => refsOf(item, `${at}/${index}`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) =>
    key === '$ref' && typeof child === 'string' ? [{ ref: child, at }] : refsOf(child, `${at}/${key}`),
  );
}

describe('openapi document', () => {
  it('validates against the OpenAPI 3.1 schema (service routes and the test models)', async () => {
    const doc = documentOf();
    assert.equal(doc.openapi, '3.1.0');
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as unknown as Record<string, unknown>);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
    assert.equal(validator.version, '3.1');
  });

  it('describes every route of the compiled table with its method and a unique operationId', () => {
    const doc = documentOf();
    assert.ok(api.routeMap.routes.length >= 20);
    for (const route of api.routeMap.routes) operation(doc, openapiPath(route.path), route.method.toLowerCase());
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(doc.paths['/api/v1/posts/{externalId}'], 'Koa :externalId becomes {externalId}');
    assert.ok(!Object.keys(doc.paths).some((path) => path.includes(':')));
  });

  it('takes info from package.json and names no absolute server', () => {
    const doc = documentOf() as Doc & { servers?: Array<{ url: string }> };
    assert.equal(doc.info.title, 'app-webhooks');
    assert.match(doc.info.version, /^\d+\.\d+\.\d+/);
    for (const server of doc.servers ?? []) assert.equal(server.url, '/');
  });

  it('resolves every $ref', async () => {
    const doc = documentOf();
    const refs = refsOf(doc);
    assert.ok(refs.length > 50);
    for (const { ref, at } of refs) {
      assert.match(ref, /^#\//, `${at}: local reference`);
      const target = ref
        .slice(2)
        .split('/')
        .reduce<unknown>(
          (node, key) => (node as Record<string, unknown> | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')],
          doc,
        );
      assert.ok(target !== undefined, `${at}: ${ref} resolves`);
    }
    const validator = new Validator();
    await validator.validate(structuredClone(doc) as unknown as Record<string, unknown>);
    assert.doesNotThrow(() => validator.resolveRefs());
  });

  it('describes the health endpoints (200 and 503 with the health answer) and the GraphQL path (GET, POST)', () => {
    const doc = documentOf();
    assert.deepEqual(statuses(operation(doc, '/livez', 'get')), ['200']);
    for (const path of ['/readyz', '/healthz', '/_app/health']) {
      const op = operation(doc, path, 'get');
      assert.deepEqual(statuses(op), ['200', '503']);
      assert.equal(op.responses['503'].content?.['application/json'].schema.$ref, '#/components/schemas/HealthAnswer');
      assert.deepEqual(op.security, [], 'no credentials');
    }
    const get = operation(doc, '/_app/gql', 'get');
    const post = operation(doc, '/_app/gql', 'post');
    assert.ok(get.responses['200'].content?.['application/graphql-response+json']);
    assert.ok(post.requestBody?.content['application/json']);
    assert.ok(post.responses['415']);
  });

  it('puts GraphQL at the configured path, and leaves it out when GraphQL is off', () => {
    const moved = documentOf(configOf({ APP_GRAPHQL: '/graphql' }));
    assert.ok(moved.paths['/graphql']?.post);
    assert.equal(moved.paths['/_app/gql'], undefined);
    const off = documentOf(configOf({ APP_GRAPHQL: 'false' }));
    assert.ok(!Object.values(off.paths).some((item) => item.post?.operationId === 'graphql.post'));
  });

  it('turns model fields into JSON Schema: types, nullability, INTEGER ranges, references as links, foreign keys as externalId strings, timestamps', () => {
    const { schemas } = documentOf().components;
    const post = schemas.Post;
    assert.deepEqual(post.properties?.title, { type: 'string' });
    assert.deepEqual(post.properties?.views?.type, ['integer', 'null']);
    assert.deepEqual(
      [post.properties?.views?.minimum, post.properties?.views?.maximum],
      [-2147483648, 2147483647],
      'an INTEGER field states the range it takes (an integer column unless declared)',
    );
    assert.deepEqual(post.properties?.rating?.type, ['number', 'null']);
    assert.equal(post.properties?.publishedAt?.format, 'date-time');
    assert.deepEqual(post.properties?.author?.type, ['string', 'null']);
    assert.ok(post.properties?.externalId && post.properties.createdAt && post.properties.updatedAt);
    assert.ok(!post.properties?.id, 'the primary key never leaves the server');
    assert.deepEqual(schemas.PostCreate.required, ['title']);
    const resource = JSON.stringify(schemas.PostResource);
    assert.match(
      resource,
      /"_links":\{"type":"object","properties":\{"author":\{"allOf":\[\{"\$ref":"#\/components\/schemas\/HalLink"\}\]/,
    );
    assert.match(resource, /"reviewer":\{"allOf"/, 'every reference is described as a link');
    assert.ok(!schemas.PostCreate.properties?.externalId, 'only permitted fields are accepted');
    assert.deepEqual(
      [schemas.PostCreate.additionalProperties, schemas.PostUpdate.additionalProperties],
      [false, false],
      'another field is refused (APP_BODY_FIELD_UNKNOWN)',
    );
    assert.ok(schemas.AuthorCreate.required?.includes('name'));
  });

  it('answers HAL: collections embed items under _embedded.<type>; create is 201 with Location; destroy 204; GET 304', () => {
    const doc = documentOf();
    const index = operation(doc, '/api/v1/authors', 'get');
    assert.equal(
      index.responses['200'].content?.['application/hal+json'].schema.$ref,
      '#/components/schemas/AuthorCollection',
    );
    const embedded = JSON.stringify(doc.components.schemas.AuthorCollection);
    assert.match(embedded, /"authors":\{"type":"array","items":\{"\$ref":"#\/components\/schemas\/AuthorResource"/);
    assert.ok(index.responses['200'].headers?.['X-Total-Count'] && index.responses['200'].headers.Link);
    assert.ok(index.parameters?.some((p) => p.$ref === '#/components/parameters/Page'));
    const create = operation(doc, '/api/v1/authors', 'post');
    assert.ok(create.responses['201'].headers?.Location);
    assert.ok(create.responses['415'], 'a body of another media type is 415 APP_BODY_MEDIA_TYPE_UNSUPPORTED');
    assert.equal(create.requestBody?.content['application/json'].schema.$ref, '#/components/schemas/AuthorCreate');
    assert.deepEqual(
      Object.keys(operation(doc, '/api/v1/authors/{externalId}', 'delete').responses).filter((s) => s < '300'),
      ['204'],
    );
    assert.ok(operation(doc, '/api/v1/authors/{externalId}', 'get').responses['304']);
    for (const [path, method] of [
      ['/api/v1/authors', 'post'],
      ['/api/v1/authors/{externalId}', 'patch'],
      ['/api/v1/authors/{externalId}', 'delete'],
    ])
      assert.ok(operation(doc, path, method).responses['412'], `${method} ${path}: If-Match is evaluated`);
    assert.equal(operation(doc, '/api/v1/authors/{externalId}', 'get').responses['412'], undefined);
    assert.match(JSON.stringify(doc.paths['/api/v1/webhooks'].get.responses['200']), /"webhooks":\{"type":"array"/);
  });

  it('answers 202 where the route does, with the documented bodies of the webhook API', () => {
    const doc = documentOf();
    for (const [path, method] of [
      ['/api/v1/events', 'post'],
      ['/api/v1/webhooks/{externalId}/test', 'post'],
      ['/api/v1/webhooks/{externalId}/recover', 'post'],
      ['/api/v1/deliveries/{externalId}/retry', 'post'],
    ]) {
      assert.ok(operation(doc, path, method).responses['202'], `${method} ${path} answers 202`);
    }
    assert.equal(
      operation(doc, '/api/v1/webhooks', 'post').requestBody?.content['application/json'].schema.$ref,
      '#/components/schemas/WebhookCreate',
    );
    assert.equal(
      operation(doc, '/api/v1/events', 'post').requestBody?.content['application/json'].schema.$ref,
      '#/components/schemas/EventCreate',
    );
    assert.ok(
      operation(doc, '/api/v1/deliveries', 'get').parameters?.some((p) => p.name === 'status' && p.in === 'query'),
    );
  });

  it('lists 401/403 and bearer or session security only where the route has roles', () => {
    const doc = documentOf();
    const open = operation(doc, '/api/v1/authors', 'post');
    assert.ok(!open.responses['401'] && !open.responses['403'] && !open.security);
    const postShow = operation(doc, '/api/v1/posts/{externalId}', 'get');
    assert.ok(!postShow.responses['401'], 'posts.show has no roles');
    const postDestroy = operation(doc, '/api/v1/posts/{externalId}', 'delete');
    assert.ok(postDestroy.responses['401'] && postDestroy.responses['403']);
    assert.deepEqual(postDestroy.security, [{ bearer: [] }, { session: [] }]);
    assert.ok(operation(doc, '/api/v1/webhooks', 'get').security);
    assert.equal((doc.components.securitySchemes.bearer as { scheme: string }).scheme, 'bearer');
    assert.equal((doc.components.securitySchemes.session as { in: string }).in, 'cookie');
  });

  it('describes the token API and the account paths', () => {
    const doc = documentOf();
    assert.equal(
      operation(doc, '/api/v1/tokens', 'post').responses['201'].content?.['application/json'].schema.$ref,
      '#/components/schemas/TokenCreated',
    );
    assert.ok(operation(doc, '/api/v1/tokens/{externalId}', 'delete'));
    assert.ok(operation(doc, '/login', 'post').responses['200']);
    for (const path of ['/logout', '/register', '/signup', '/password', '/forgot-password', '/reset-password'])
      assert.ok(operation(doc, path, 'post'), path);
  });

  it('lists 406 and the versioned media type only where the route has a version', () => {
    const doc = documentOf();
    const versioned = operation(doc, '/api/v1/posts', 'get');
    assert.ok(versioned.responses['406']);
    assert.ok(versioned.responses['200'].content?.['application/vnd.app.v1+json']);
    const unversioned = operation(doc, '/api/v1/authors', 'get');
    assert.ok(!unversioned.responses['406']);
    assert.ok(!unversioned.responses['200'].content?.['application/vnd.app.v1+json']);
    assert.ok(
      unversioned.responses['200'].content?.['application/hal+json'] &&
        unversioned.responses['200'].content['application/json'],
    );
  });

  it('takes Idempotency-Key and lists 409/422 on mutations, not on reads, not when idempotency is off', () => {
    const doc = documentOf();
    const key = '#/components/parameters/IdempotencyKey';
    const update = operation(doc, '/api/v1/posts/{externalId}', 'patch');
    assert.ok(update.parameters?.some((p) => p.$ref === key) && update.responses['409'] && update.responses['422']);
    const read = operation(doc, '/api/v1/posts/{externalId}', 'get');
    assert.ok(!read.parameters?.some((p) => p.$ref === key) && !read.responses['409']);
    const off = documentOf(configOf({ APP_API__IDEMPOTENCY: 'false' }));
    const destroy = operation(off, '/api/v1/authors/{externalId}', 'delete');
    assert.ok(!destroy.parameters?.some((p) => p.$ref === key) && !destroy.responses['409']);
  });

  it('lists 429 with the RateLimit headers where a limiter applies', () => {
    const doc = documentOf();
    const op = operation(doc, '/api/v1/authors', 'get');
    assert.equal(op.responses['429'].$ref, '#/components/responses/Problem429');
    assert.ok(op.responses['200'].headers?.RateLimit);
    const off = documentOf(configOf({ APP_RATE_LIMIT: 'false' }));
    assert.ok(!operation(off, '/api/v1/authors', 'get').responses['429'], 'no limiter: no 429');
    assert.ok(operation(off, '/status/{name}/ping', 'post').responses['429'], 'a route limit is always enforced');
    const problem = JSON.stringify(doc.components.schemas.Problem);
    for (const member of ['type', 'title', 'status', 'detail', 'code', 'data', 'requestId'])
      assert.match(problem, new RegExp(`"${member}"`));
  });
});

/**
 * One source for the public shapes: the projections answer exactly the
 * declared fields, and the GraphQL object types (SDL) and the OpenAPI schemas of the same
 * records agree field by field: names, nullability, kinds, lists, enums and references.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  buildSchema,
  getNullableType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLOutputType,
} from 'graphql';
import { openapiDocument } from '../../../api/openapi/document.ts';
import { buildApiOffline } from '../../../api/openapi/offline.ts';
import { WEBHOOK_TYPES } from '../../../api/graphql/webhooks/types.ts';
import { GRAPHQL_TYPE_OF } from '../../../api/graphql/webhooks/shape-types.ts';
import { resolveConfig } from '../../../shared/config/index.ts';
import { maskedEndpoint } from '../../../shared/webhooks/endpoints/store.ts';
import {
  PUBLIC_SHAPES,
  publicAttempt,
  publicCounts,
  publicDelivery,
  publicDeliveryDetails,
  publicEndpoint,
  publicEvent,
  publicNewDelivery,
  publicSecret,
  type ShapeName,
} from '../../../shared/webhooks/public-shapes.ts';

type Schema = Record<string, any>;

const config = resolveConfig({ env: { NODE_ENV: 'production' } }).config;
const document = openapiDocument({ config, api: buildApiOffline({}) }) as {
  components: { schemas: Record<string, Schema> };
};
const components = document.components.schemas;
const schema = buildSchema(`scalar DateTime\nscalar JSON\n${WEBHOOK_TYPES}`);

/** A component's properties and required names, `allOf` merged; the HAL part (`_links`) left out. */
function flatten(component: Schema): { properties: Record<string, Schema>; required: Set<string> } {
  const properties: Record<string, Schema> = {};
  const required = new Set<string>();
  const visit = (part: Schema) => {
    if (part.$ref) {
      const name = String(part.$ref).split('/').pop() as string;
      if (name !== 'HalResource') visit(components[name]);
      return;
    }
    for (const inner of part.allOf ?? []) visit(inner);
    Object.assign(properties, part.properties ?? {});
    for (const name of part.required ?? []) required.add(name);
  };
  visit(component);
  delete properties._links;
  return { properties, required };
}

const typesOf = (property: Schema): string[] => (property.type === undefined ? [] : [property.type].flat());
const componentOf = (ref: string) => ref.split('/').pop() as string;
const pairedShape = (graphqlName: string) =>
  (Object.entries(GRAPHQL_TYPE_OF).find(([, name]) => name === graphqlName) ?? [])[0];

/** Why the GraphQL output type `type` and the OpenAPI property `property` disagree, or null. */
function disagreement(type: GraphQLOutputType, property: Schema, at: string): string | null {
  const nullableInGraphql = !isNonNullType(type);
  const kinds = typesOf(property);
  const nullableInOpenapi = property.$ref === undefined && (kinds.length === 0 || kinds.includes('null'));
  if (nullableInGraphql !== nullableInOpenapi)
    return `${at}: nullable in ${nullableInGraphql ? 'GraphQL' : 'OpenAPI'} only`;
  const inner = getNullableType(type);
  const kind = kinds.find((name) => name !== 'null');
  if (isListType(inner)) {
    if (kind !== 'array') return `${at}: a list in GraphQL, ${kind} in OpenAPI`;
    return disagreement(inner.ofType, property.items, `${at}[]`);
  }
  if (isEnumType(inner)) {
    const values = inner
      .getValues()
      .map((value) => String(value.value ?? value.name).toLowerCase())
      .sort();
    const wanted = [...(property.enum ?? [])].map(String).sort();
    return JSON.stringify(values) === JSON.stringify(wanted)
      ? null
      : `${at}: enum ${values} in GraphQL, ${wanted} in OpenAPI`;
  }
  if (isObjectType(inner)) {
    const ref = property.$ref ?? property.allOf?.[0]?.$ref;
    return ref !== undefined && componentOf(ref) === pairedShape(inner.name)
      ? null
      : `${at}: ${inner.name} in GraphQL, ${JSON.stringify(property)} in OpenAPI`;
  }
  if (isScalarType(inner)) {
    const expected: Record<string, (p: Schema) => boolean> = {
      ID: (p) => kind === 'string' && typeof p.pattern === 'string',
      String: (p) => kind === 'string' && p.format !== 'date-time',
      DateTime: (p) => kind === 'string' && p.format === 'date-time',
      Int: () => kind === 'integer',
      Float: () => kind === 'number',
      Boolean: () => kind === 'boolean',
      JSON: () => kind === undefined || kind === 'object',
    };
    return expected[inner.name]?.(property)
      ? null
      : `${at}: ${inner.name} in GraphQL, ${JSON.stringify(property)} in OpenAPI`;
  }
  return `${at}: unexpected GraphQL type ${String(inner)}`;
}

/** GraphQL-only fields: deprecated aliases and relations, declared as such in shape-types.ts. */
const graphqlOnly = (field: GraphQLField<unknown, unknown>) =>
  (field.deprecationReason !== undefined && field.deprecationReason !== null) ||
  ['endpoint', 'attempts', 'recentEvents'].includes(field.name);

describe('public shapes: one source for REST, GraphQL, OpenAPI and the CLI', () => {
  for (const [shape, graphqlName] of Object.entries(GRAPHQL_TYPE_OF) as Array<[ShapeName, string]>) {
    it(`GraphQL ${graphqlName} and OpenAPI ${shape} have the same fields, nullability and kinds`, () => {
      const type = schema.getType(graphqlName) as GraphQLObjectType;
      assert.ok(type, `${graphqlName} is in the SDL`);
      const { properties, required } = flatten(components[shape]);
      const fields = Object.values(type.getFields()).filter((field) => !graphqlOnly(field));
      assert.deepEqual(
        fields.map((field) => field.name).sort(),
        Object.keys(properties).sort(),
        'the same field names',
      );
      assert.deepEqual(
        [...required].sort(),
        Object.keys(properties).sort(),
        'every field is required in OpenAPI (answers always carry it, null or not)',
      );
      const problems = fields
        .map((field) => disagreement(field.type, properties[field.name], `${shape}.${field.name}`))
        .filter((problem) => problem !== null);
      assert.deepEqual(problems, []);
      assert.deepEqual(
        Object.keys(PUBLIC_SHAPES[shape]).sort(),
        Object.keys(properties).sort(),
        'and they are the declared shape',
      );
    });
  }

  it('the deprecated GraphQL id is only an alias beside externalId', () => {
    for (const name of ['WebhookEndpoint', 'WebhookEvent', 'WebhookDelivery']) {
      const fields = (schema.getType(name) as GraphQLObjectType).getFields();
      assert.ok(fields.externalId, `${name}.externalId`);
      assert.match(String(fields.id.deprecationReason), /externalId/);
    }
  });

  it('every projection answers exactly the fields of its shape', () => {
    const at = new Date('2026-01-01T00:00:00Z');
    const endpoint = {
      id: 'ep_1',
      url: 'https://example.com/h',
      events: ['*'],
      filter: null,
      owner: null,
      description: null,
      headers: { 'X-Key': 'secret' },
      enabled: true,
      disabledAt: null,
      disabledReason: null,
      signing: 'hmac-sha256' as const,
      rateLimit: null,
      ordering: 'none' as const,
      createdAt: at,
      updatedAt: at,
    };
    const counts = { pending: 1, running: 0, done: 2, dead: 0, total: 3 };
    const summary = {
      id: 'msg_1',
      status: 'done' as const,
      queue: 'default',
      endpointId: 'ep_1',
      eventId: 'evt_1',
      event: 'a.b',
      owner: null,
      attempts: 1,
      nextAttemptAt: null,
      waitingSince: null,
      lastStatus: 200,
      lastError: null,
      queuedAgainAt: null,
      queuedAgainBy: null,
      attemptsBefore: 0,
      createdAt: at,
      updatedAt: at,
      completedAt: at,
    };
    const attempt = {
      attempt: 1,
      startedAt: at,
      durationMs: 5,
      status: 200,
      outcome: 'done' as const,
      error: null,
      excerpt: 'ok',
    };
    const keys = (value: object) => Object.keys(value).sort();
    const shapeKeys = (shape: ShapeName) => Object.keys(PUBLIC_SHAPES[shape]).sort();
    assert.deepEqual(keys(publicEndpoint(maskedEndpoint(endpoint))), shapeKeys('Webhook'));
    assert.deepEqual(
      publicEndpoint(maskedEndpoint(endpoint)).headers,
      { 'X-Key': null },
      "a change's answer: header values hidden",
    );
    assert.deepEqual(keys(publicSecret({ createdAt: at, expiresAt: null })), shapeKeys('WebhookSecret'));
    assert.deepEqual(keys(publicCounts(counts)), shapeKeys('DeliveryCounts'));
    assert.deepEqual(
      keys(
        publicEvent({
          id: 'evt_1',
          type: 'a.b',
          owner: null,
          data: {},
          createdAt: at,
          deliveries: counts,
          filteredOut: 0,
        }),
      ),
      shapeKeys('Event'),
    );
    assert.deepEqual(keys(publicDelivery(summary)), shapeKeys('Delivery'));
    assert.deepEqual(
      keys(
        publicNewDelivery({
          id: 'msg_2',
          status: 'pending',
          queue: 'default',
          endpointId: 'ep_1',
          eventId: 'evt_1',
          event: 'a.b',
          owner: null,
          createdAt: at,
        }),
      ),
      shapeKeys('Delivery'),
    );
    assert.deepEqual(keys(publicAttempt(attempt)), shapeKeys('Attempt'));
    const details = publicDeliveryDetails({
      ...summary,
      endpoint: { id: 'ep_1', url: endpoint.url, enabled: true, disabledAt: null, disabledReason: null },
      attemptsMade: [attempt],
    });
    assert.deepEqual(keys(details), [...shapeKeys('Delivery'), 'attempts', 'endpoint'].sort());
    assert.deepEqual(
      Object.keys(flatten(components.DeliveryDetails).properties).sort(),
      keys(details),
      'DeliveryDetails describes the shown delivery',
    );
  });
});

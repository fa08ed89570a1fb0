/**
 * The GraphQL object types of webhook records, generated from their public shapes
 * (shared/webhooks/public-shapes.ts), so GraphQL, REST, the OpenAPI document and the CLI name
 * and type every field alike. What only GraphQL has is declared here as extras: field
 * arguments, relations to other types, and the deprecated `id` alias of `externalId`.
 */
import { PUBLIC_SHAPES, type PublicField, type ShapeName } from '../../../shared/webhooks/public-shapes.ts';

/** The GraphQL type of each public shape. */
export const GRAPHQL_TYPE_OF: Readonly<Partial<Record<ShapeName, string>>> = {
  Webhook: 'WebhookEndpoint',
  DeliveryCounts: 'WebhookDeliveryCounts',
  Event: 'WebhookEvent',
  Delivery: 'WebhookDelivery',
  Attempt: 'WebhookAttempt',
};

/** Fields whose GraphQL type is not the one their JSON Schema gives (an enum of the schema). */
const TYPE_OVERRIDES: Readonly<Record<string, string>> = { 'Delivery.status': 'WebhookDeliveryStatus!' };

/** What a GraphQL type adds to its shape: extra fields (SDL lines) and field arguments. */
export const GRAPHQL_EXTRAS: Readonly<
  Partial<Record<ShapeName, { args?: Record<string, string>; fields?: string[] }>>
> = {
  Webhook: {
    args: { headers: '(reveal: Boolean = false)' },
    fields: [
      '"Deprecated alias of externalId."\n    id: ID! @deprecated(reason: "Use externalId, the id\'s name in REST, GraphQL and the CLI.")',
      '"The latest events of its owner whose type its patterns match, newest first (what its filter decides on; at most 50)."\n    recentEvents(limit: Int = 10): [WebhookRecentEvent!]!',
    ],
  },
  Event: {
    fields: [
      '"Deprecated alias of externalId."\n    id: ID! @deprecated(reason: "Use externalId, the id\'s name in REST, GraphQL and the CLI.")',
    ],
  },
  Delivery: {
    fields: [
      '"Deprecated alias of externalId."\n    id: ID! @deprecated(reason: "Use externalId, the id\'s name in REST, GraphQL and the CLI.")',
      '"The endpoint (loaded for a whole page at once)."\n    endpoint: WebhookEndpoint',
      '"Every attempt, when the delivery is read alone (webhookDelivery); null in lists."\n    attempts: [WebhookAttempt!]',
    ],
  },
};

const nullable = (schema: Record<string, unknown>): boolean =>
  schema.type === undefined || (Array.isArray(schema.type) && schema.type.includes('null'));

const baseType = (schema: Record<string, unknown>): string =>
  (Array.isArray(schema.type) ? schema.type.find((type) => type !== 'null') : schema.type) as string;

/** The GraphQL type of a public field (`String!`, `[String!]!`, `DateTime`, `JSON`, …). */
export function graphqlTypeOf(shape: ShapeName, name: string, field: PublicField): string {
  const override = TYPE_OVERRIDES[`${shape}.${name}`];
  if (override) return override;
  const bang = nullable(field.schema) ? '' : '!';
  if (field.shape) return `${GRAPHQL_TYPE_OF[field.shape]}${bang}`;
  if (field.id) return `ID${bang}`;
  switch (baseType(field.schema)) {
    case 'string':
      return `${field.schema.format === 'date-time' ? 'DateTime' : 'String'}${bang}`;
    case 'integer':
      return `Int${bang}`;
    case 'number':
      return `Float${bang}`;
    case 'boolean':
      return `Boolean${bang}`;
    case 'array': {
      const items = field.schema.items as Record<string, unknown>;
      return `[${graphqlTypeOf(shape, `${name}[]`, { schema: items })}]${bang}`;
    }
    default:
      return `JSON${bang}`;
  }
}

const describe = (text: string | undefined) => (text === undefined ? '' : `${JSON.stringify(text)}\n    `);

/** The SDL of the object type of `shape`, with its GraphQL extras. */
export function objectTypeSdl(shape: ShapeName, description: string): string {
  const extras = GRAPHQL_EXTRAS[shape] ?? {};
  const fields = Object.entries(PUBLIC_SHAPES[shape]).map(
    ([name, field]) =>
      `${describe(field.description)}${name}${extras.args?.[name] ?? ''}: ${graphqlTypeOf(shape, name, field)}`,
  );
  return `${JSON.stringify(description)}\n  type ${GRAPHQL_TYPE_OF[shape]} {\n    ${[...fields, ...(extras.fields ?? [])].join('\n    ')}\n  }`;
}

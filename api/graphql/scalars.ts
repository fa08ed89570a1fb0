/**
 * The scalars the service's own types use, contributed like any model's types: `DateTime`
 * (ISO 8601 text; a `Date` or ISO text on the way out) and `JSON` (any JSON value: event
 * payloads, endpoint headers). A model declaration may use them without declaring them.
 */
import { GraphQLError, GraphQLScalarType, Kind, valueFromASTUntyped, type ValueNode } from 'graphql';
import type { Contribution } from './contribution.ts';
import { describeValue } from '../../shared/errors/describe-value.ts';
import { readIsoDateTime } from '../../shared/webhooks/time-range.ts';

/** `node`: the literal in the query, so that the error points at it (GraphQL reports such an error as thrown). */
function parseDate(value: unknown, node?: ValueNode): Date {
  const date = typeof value === 'string' ? readIsoDateTime(value) : undefined;
  if (!date) {
    throw new GraphQLError(
      `DateTime must be an ISO 8601 date-time such as 2026-01-31T12:00:00Z, got ${describeValue(value)}`,
      node ? { nodes: [node] } : undefined,
    );
  }
  return date;
}

export const DateTime = new GraphQLScalarType({
  name: 'DateTime',
  description: 'A point in time, as ISO 8601 text (UTC on the way out).',
  serialize(value) {
    const date =
      value instanceof Date
        ? value
        : typeof value === 'string' || typeof value === 'number'
          ? new Date(value)
          : undefined;
    if (!date || Number.isNaN(date.getTime())) throw new TypeError(`DateTime cannot represent ${describeValue(value)}`);
    return date.toISOString();
  },
  parseValue: (value) => parseDate(value),
  parseLiteral(node) {
    if (node.kind !== Kind.STRING) throw new GraphQLError('DateTime must be a string', { nodes: [node] });
    return parseDate(node.value, node);
  },
});

export const JSONScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value.',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (node, variables) => valueFromASTUntyped(node, variables),
});

/** `scalar DateTime` and `scalar JSON` with their implementations. */
export function scalarsContribution(): Contribution {
  return {
    source: 'scalars',
    types: /* GraphQL */ `
      "A point in time, as ISO 8601 text."
      scalar DateTime
      "Any JSON value."
      scalar JSON
    `,
    resolvers: { DateTime, JSON: JSONScalar },
  };
}

/**
 * Introspection off (`graphql.introspection`, false in production unless configured on): the
 * schema cannot be read by a client.
 *
 * - `__schema` is refused: a validation error `APP_GRAPHQL_INTROSPECTION_DISABLED` (status 400).
 * - `__type(name:)` answers null for every name, as for a type that does not exist: nothing is
 *   learnt by probing names, and a client that merely looks one type up (the GraphQL-over-HTTP
 *   audit does, and requires an answer without errors) is not broken by it.
 * - `__typename` stays: it names only the types a client already receives.
 * - graphql-js's "Did you mean …?" hints are cut from its messages (validation and variable
 *   coercion): they name the fields, arguments, types and enum values close to a misspelt one,
 *   so a client could otherwise read the schema back by sending guesses.
 */
import {
  GraphQLError,
  Kind,
  visit,
  type ASTVisitor,
  type DocumentNode,
  type FieldNode,
  type ValidationContext,
} from 'graphql';

export const INTROSPECTION_DISABLED = 'APP_GRAPHQL_INTROSPECTION_DISABLED';

/** Refuses `__schema`. */
export function noSchemaIntrospection(context: ValidationContext): ASTVisitor {
  return {
    Field(node) {
      if (node.name.value !== '__schema') return;
      context.reportError(
        new GraphQLError('introspection is disabled on this server (graphql.introspection)', {
          nodes: [node],
          extensions: { code: INTROSPECTION_DISABLED },
        }),
      );
    },
  };
}

/** graphql-js's suggestion: the last sentence of its message, "Did you mean …?". */
const SUGGESTION = / Did you mean [\s\S]*\?$/;

/** The error without graphql-js's suggestion of nearby names (the same error when it has none). */
export function withoutSuggestion(error: GraphQLError): GraphQLError {
  if (!SUGGESTION.test(error.message)) return error;
  return new GraphQLError(error.message.replace(SUGGESTION, ''), {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: error.extensions,
  });
}

/** The document with every `__type(name: …)` asking for the empty name, which no type has. */
export function hideTypes(document: DocumentNode): DocumentNode {
  return visit(document, {
    Field(node): FieldNode | undefined {
      if (node.name.value !== '__type') return undefined;
      return {
        ...node,
        arguments: [
          { kind: Kind.ARGUMENT, name: { kind: Kind.NAME, value: 'name' }, value: { kind: Kind.STRING, value: '' } },
        ],
      };
    },
  });
}

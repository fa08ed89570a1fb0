/**
 * One GraphQL operation from query text to an executable document, the same for HTTP and in
 * process: size and tokens (before parsing), parse, then graphql-js's validation rules plus
 * the service's own (introspection, depth, aliases, cost). The core knows no web server.
 */
import { getOperationAST, parse, specifiedRules, validate, type DocumentNode, type GraphQLError, type GraphQLSchema, type OperationTypeNode } from 'graphql';
import { hideTypes, INTROSPECTION_DISABLED, noSchemaIntrospection } from './introspection.ts';
import { checkDocument, isLimitError, limitRules, type GraphqlLimits } from './limits.ts';

export interface OperationRequest {
  query: string;
  variables?: Readonly<Record<string, unknown>> | null;
  operationName?: string | null;
}

export interface OperationRules {
  /** The limits; undefined in process (trusted code), where only GraphQL's own rules apply. */
  limits?: GraphqlLimits;
  /** Whether `__schema` and `__type` answer (`graphql.introspection`). */
  introspection: boolean;
  /** Size of a list whose size the query does not give (cost; `api.perPage`). */
  defaultListSize: number;
}

export type Prepared =
  | { ok: true; document: DocumentNode }
  /** `refused`: by the service's own rules (limits, introspection): answered 400 whatever the media type. */
  | { ok: false; errors: readonly GraphQLError[]; refused: boolean };

/** Whether an error is one of the service's own refusals rather than GraphQL's. */
export const isServiceRefusal = (error: GraphQLError): boolean => isLimitError(error) || error.extensions?.code === INTROSPECTION_DISABLED;

/** Checks, parses and validates a request's document against `schema`. */
export function prepare(schema: GraphQLSchema, rules: OperationRules, request: OperationRequest): Prepared {
  if (rules.limits) {
    const refusal = checkDocument(request.query, rules.limits);
    if (refusal) return { ok: false, errors: [refusal], refused: true };
  }
  let document: DocumentNode;
  try {
    document = parse(request.query, rules.limits ? { maxTokens: rules.limits.maxTokens } : undefined);
  } catch (error) {
    return { ok: false, errors: [error as GraphQLError], refused: false };
  }
  const own = [
    ...(rules.introspection ? [] : [noSchemaIntrospection]),
    ...(rules.limits ? limitRules(rules.limits, { variables: request.variables, defaultListSize: rules.defaultListSize }) : []),
  ];
  const errors = validate(schema, document, [...specifiedRules, ...own]);
  if (errors.length > 0) return { ok: false, errors, refused: errors.some(isServiceRefusal) };
  return { ok: true, document: rules.introspection ? document : hideTypes(document) };
}

/**
 * The type of the operation a request would run (`query`, `mutation`…), or undefined when the
 * document does not parse within `maxTokens` or names no single operation. Used to decide
 * whether `Idempotency-Key` applies before the operation runs.
 */
export function operationType(request: Partial<OperationRequest>, maxTokens: number): OperationTypeNode | undefined {
  if (typeof request.query !== 'string') return undefined;
  try {
    const operationName = typeof request.operationName === 'string' ? request.operationName : undefined;
    return getOperationAST(parse(request.query, { maxTokens, noLocation: true }), operationName)?.operation;
  } catch {
    return undefined;
  }
}

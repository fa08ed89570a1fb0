/**
 * The GraphQL layer's safety limits (our choice of values: these are what users of Apollo,
 * Yoga and graphql-armor expect). Each is a `config.graphql` key, and each refusal is a
 * GraphQL error naming the limit, answered with status 400 (serve.ts), never a 500:
 *
 * | Limit        | Key                  | Default | Measured on                                               | Code                      |
 * |--------------|----------------------|---------|-----------------------------------------------------------|---------------------------|
 * | size         | `graphql.maxBytes`   | 100kb   | the query document, in UTF-8 bytes (before lexing)        | `APP_GRAPHQL_MAX_BYTES`   |
 * | tokens       | `graphql.maxTokens`  | 2000    | lexical tokens of the document (before parsing)           | `APP_GRAPHQL_MAX_TOKENS`  |
 * | depth        | `graphql.maxDepth`   | 10      | deepest field nesting of an operation, fragments expanded | `APP_GRAPHQL_MAX_DEPTH`   |
 * | aliases      | `graphql.maxAliases` | 15      | aliased fields of an operation, fragments expanded        | `APP_GRAPHQL_MAX_ALIASES` |
 * | cost         | `graphql.maxCost`    | 5000    | estimated cost of an operation (see {@link costRule})     | `APP_GRAPHQL_MAX_COST`    |
 *
 * Size and tokens are checked before the document is parsed, so a huge document costs nothing;
 * depth, aliases and cost are validation rules, run with graphql-js's own. Introspection
 * (`__schema`, `__type`) is left out of depth and cost: its shape is fixed and bounded by the
 * tokens limit, and it is governed by `graphql.introspection` instead.
 */
import {
  GraphQLError,
  Lexer,
  Source,
  TokenKind,
  type ASTVisitor,
  type OperationDefinitionNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { costOf, type CostOptions } from './cost.ts';
import { walk } from './walk.ts';

export interface GraphqlLimits {
  maxBytes: number;
  maxTokens: number;
  maxDepth: number;
  maxAliases: number;
  maxCost: number;
}

export type LimitName = keyof GraphqlLimits;

/** The limits as data: what each measures (for messages) and its error code. */
export const LIMITS: Readonly<Record<LimitName, { measure: string; code: string }>> = {
  maxBytes: { measure: 'the query document size (bytes)', code: 'APP_GRAPHQL_MAX_BYTES' },
  maxTokens: { measure: 'the number of tokens', code: 'APP_GRAPHQL_MAX_TOKENS' },
  maxDepth: { measure: 'the query depth', code: 'APP_GRAPHQL_MAX_DEPTH' },
  maxAliases: { measure: 'the number of aliases', code: 'APP_GRAPHQL_MAX_ALIASES' },
  maxCost: { measure: 'the estimated query cost', code: 'APP_GRAPHQL_MAX_COST' },
};

const LIMIT_CODES = new Set(Object.values(LIMITS).map((limit) => limit.code));

/** The GraphQL error of a limit: names the measure, the limit's key, the bound and what was found. */
export function limitError(name: LimitName, max: number, actual: number, node?: OperationDefinitionNode): GraphQLError {
  const { measure, code } = LIMITS[name];
  const found = actual > max && Number.isFinite(actual) ? `${actual}` : `more than ${max}`;
  const operation = node?.name ? ` of operation ${node.name.value}` : '';
  return new GraphQLError(`${measure}${operation} is ${found}, over the limit of ${max} (graphql.${name})`, {
    nodes: node ? [node] : undefined,
    extensions: { code, limit: name, max, actual: Number.isFinite(actual) ? actual : null },
  });
}

/** Whether an error is one of these limits' refusals. */
export const isLimitError = (error: GraphQLError): boolean => LIMIT_CODES.has(error.extensions?.code as string);

/**
 * Tokens of a document, counted the way graphql-js counts them (comments excluded), stopping
 * at `max + 1`. A document the lexer refuses counts what came before; parsing reports it.
 */
export function countTokens(query: string, max: number): number {
  const lexer = new Lexer(new Source(query));
  let count = 0;
  try {
    for (let token = lexer.advance(); token.kind !== TokenKind.EOF && count <= max; token = lexer.advance()) count += 1;
  } catch {
    // a syntax error: parse() reports it with its location
  }
  return count;
}

/** Size then tokens, before parsing; the refusal, or undefined when the document is within both. */
export function checkDocument(
  query: string,
  limits: Pick<GraphqlLimits, 'maxBytes' | 'maxTokens'>,
): GraphQLError | undefined {
  // UTF-8 is at most 3 bytes per UTF-16 unit: a document this short cannot be over the limit
  if (query.length * 3 > limits.maxBytes) {
    const bytes = Buffer.byteLength(query, 'utf8');
    if (bytes > limits.maxBytes) return limitError('maxBytes', limits.maxBytes, bytes);
  }
  const tokens = countTokens(query, limits.maxTokens);
  if (tokens > limits.maxTokens) return limitError('maxTokens', limits.maxTokens, tokens);
  return undefined;
}

/** A rule measuring each operation with `measure` and refusing it over `max`. */
function perOperation(
  name: LimitName,
  max: number,
  measure: (context: ValidationContext, operation: OperationDefinitionNode) => number,
): ValidationRule {
  const rule = (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(operation) {
      const actual = measure(context, operation);
      if (actual > max) context.reportError(limitError(name, max, actual, operation));
      return false; // fragments are expanded by the measure; nothing more to visit here
    },
  });
  Object.defineProperty(rule, 'name', { value: `${name}Rule` });
  return rule;
}

/** Deepest field nesting (`{a {b}}` is 2); introspection fields are not counted. */
export const depthRule = (max: number): ValidationRule =>
  perOperation('maxDepth', max, (context, operation) =>
    walk(context, operation.selectionSet, {
      field: (node, below) => (node.name.value === '__schema' || node.name.value === '__type' ? 0 : 1 + below()),
      combine: (values) => Math.max(0, ...values),
    }),
  );

/** Aliased fields, every use of a fragment counted. */
export const aliasesRule = (max: number): ValidationRule =>
  perOperation('maxAliases', max, (context, operation) =>
    walk(context, operation.selectionSet, {
      field: (node, below) => (node.alias ? 1 : 0) + below(),
      combine: (values) => values.reduce((sum, value) => sum + value, 0),
    }),
  );

/** Estimated cost (cost.ts); `variables` are the request's, for list sizes given as variables. */
export const costRule = (max: number, options: CostOptions): ValidationRule =>
  perOperation('maxCost', max, (context, operation) => costOf(context, operation, options));

/** The validation rules of the limits, for one request. */
export function limitRules(limits: GraphqlLimits, options: CostOptions): ValidationRule[] {
  return [depthRule(limits.maxDepth), aliasesRule(limits.maxAliases), costRule(limits.maxCost, options)];
}

/**
 * One GraphQL operation from query text to an executable document, the same for HTTP and in
 * process: size and tokens (before parsing), parse, then graphql-js's validation rules plus
 * the service's own (introspection, depth, aliases, cost). The core knows no web server. A
 * document that does not parse is refused with `APP_GRAPHQL_SYNTAX`, one graphql-js's rules
 * refuse with `APP_GRAPHQL_VALIDATION` (protocol-codes.ts).
 */
import {
  getOperationAST,
  Kind,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLError,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type OperationTypeNode,
} from 'graphql';
import { costOf } from './cost.ts';
import { createDocumentCache, type DocumentCacheBounds } from './document-cache.ts';
import { hideTypes, INTROSPECTION_DISABLED, noSchemaIntrospection, withoutSuggestion } from './introspection.ts';
import { checkDocument, isLimitError, limitError, limitRules, type GraphqlLimits } from './limits.ts';
import { SYNTAX, VALIDATION, withCode } from './protocol-codes.ts';

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
  /** Most items a list field answers, by `Type.field` (cost; contribution.ts `listSizes`). */
  maxListSizes?: ReadonlyMap<string, number>;
}

export type Prepared =
  | { ok: true; document: DocumentNode }
  /** `refused`: by the service's own rules (limits, introspection): answered 400 whatever the media type. */
  | { ok: false; errors: readonly GraphQLError[]; refused: boolean };

/** Whether an error is one of the service's own refusals rather than GraphQL's. */
export const isServiceRefusal = (error: GraphQLError): boolean =>
  isLimitError(error) || error.extensions?.code === INTROSPECTION_DISABLED;

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
    return { ok: false, errors: [withCode(error as GraphQLError, SYNTAX)], refused: false };
  }
  const own = [
    ...(rules.introspection ? [] : [noSchemaIntrospection]),
    ...(rules.limits
      ? limitRules(rules.limits, {
          variables: request.variables,
          defaultListSize: rules.defaultListSize,
          maxListSizes: rules.maxListSizes,
        })
      : []),
  ];
  // graphql-js's own rules report without a code; the service's carry theirs (kept)
  const found = validate(schema, document, [...specifiedRules, ...own]).map((error) => withCode(error, VALIDATION));
  // introspection off: the messages do not suggest the schema's names (introspection.ts)
  const errors = rules.introspection ? found : found.map(withoutSuggestion);
  if (errors.length > 0) return { ok: false, errors, refused: errors.some(isServiceRefusal) };
  return { ok: true, document: rules.introspection ? document : hideTypes(document) };
}

/** A document that passed every rule, as kept per query text. */
interface Kept {
  document: DocumentNode;
  operations: readonly OperationDefinitionNode[];
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  /** Whether an operation declares variables: only then can the cost (sizes given as variables) differ between requests. */
  variables: boolean;
}

/**
 * `prepare` for one schema and one set of rules, with the documents that passed every rule kept
 * per query text (document-cache.ts): a text seen before is neither checked for size and tokens,
 * nor parsed, nor validated again, as these depend on the text alone. Only the cost limit reads
 * the request's variables (list sizes given as variables), so for a kept document that declares
 * variables the cost is measured again, refused as validation refuses it. Documents refused by a
 * rule are not kept (they are prepared again each time; a client sending junk fills nothing).
 */
export function createPreparer(
  schema: GraphQLSchema,
  rules: OperationRules,
  bounds?: DocumentCacheBounds,
): (request: OperationRequest) => Prepared {
  const kept = createDocumentCache<Kept>(bounds);
  const cost = rules.limits?.maxCost;
  return (request) => {
    const known = kept.get(request.query);
    if (known) {
      if (cost === undefined || !known.variables) return { ok: true, document: known.document };
      const context = { getSchema: () => schema, getFragment: (name: string) => known.fragments.get(name) };
      const errors: GraphQLError[] = [];
      for (const operation of known.operations) {
        const actual = costOf(context, operation, {
          variables: request.variables,
          defaultListSize: rules.defaultListSize,
          maxListSizes: rules.maxListSizes,
        });
        if (actual > cost) errors.push(limitError('maxCost', cost, actual, operation));
      }
      return errors.length > 0 ? { ok: false, errors, refused: true } : { ok: true, document: known.document };
    }
    const prepared = prepare(schema, rules, request);
    if (prepared.ok) {
      const operations = prepared.document.definitions.filter(
        (definition) => definition.kind === Kind.OPERATION_DEFINITION,
      );
      const fragments = new Map(
        prepared.document.definitions
          .filter((definition) => definition.kind === Kind.FRAGMENT_DEFINITION)
          .map((fragment) => [fragment.name.value, fragment]),
      );
      kept.set(request.query, {
        document: prepared.document,
        operations,
        fragments,
        variables: operations.some((operation) => (operation.variableDefinitions?.length ?? 0) > 0),
      });
    }
    return prepared;
  };
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

/**
 * The stable codes of GraphQL's own refusals, the ones graphql-js and graphql-http raise
 * without any: every error a client receives then carries an `extensions.code`, as the service's
 * other refusals do (masking.ts, limits.ts, introspection.ts). Each is given where the stage that
 * failed is known, never guessed from a message:
 *
 * | Code                            | Raised when                                                                 | Given by |
 * |---------------------------------|-----------------------------------------------------------------------------|----------|
 * | `APP_GRAPHQL_REQUEST_INVALID`   | the request's parameters are wrong: no `query`, `variables` not an object, a GET's `variables` that is not JSON; or `operationName` does not pick one operation of the document | graphql-http's parameter checks (handler.ts `formatError`); `chooseOperation` |
 * | `APP_GRAPHQL_SYNTAX`            | the document does not parse                                                 | operation.ts `prepare` |
 * | `APP_GRAPHQL_VALIDATION`        | the document does not validate against the schema (unknown field, wrong argument type…) | operation.ts `prepare` |
 * | `APP_GRAPHQL_VARIABLES_INVALID` | the request's `variables` do not fit the operation's variable definitions  | the handler and `graphql.run`, from an execution refused before it ran |
 *
 * Messages stay graphql-js's and graphql-http's (their meaning is theirs), except where
 * `chooseOperation` says what to do instead of "Unable to detect operation AST".
 */
import { getOperationAST, GraphQLError, Kind, type DocumentNode, type OperationDefinitionNode } from 'graphql';

export const REQUEST_INVALID = 'APP_GRAPHQL_REQUEST_INVALID';
export const SYNTAX = 'APP_GRAPHQL_SYNTAX';
export const VALIDATION = 'APP_GRAPHQL_VALIDATION';
export const VARIABLES_INVALID = 'APP_GRAPHQL_VARIABLES_INVALID';

/** The codes above: a request refused as a whole, before any resolver ran. */
export const PROTOCOL_CODES: ReadonlySet<string> = new Set([REQUEST_INVALID, SYNTAX, VALIDATION, VARIABLES_INVALID]);

/** The error with `code` in its extensions; an error that has a code already keeps it. */
export function withCode(error: Readonly<GraphQLError | Error>, code: string): GraphQLError {
  if (!(error instanceof GraphQLError)) return new GraphQLError(error.message, { extensions: { code } });
  if (error.extensions?.code !== undefined) return error;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: { ...error.extensions, code },
  });
}

/**
 * The operation a request runs: the document's only one, or the one `operationName` names. A
 * document of several operations without a name, or a name the document does not hold, is
 * refused with a message saying what to send instead.
 */
export function chooseOperation(
  document: DocumentNode,
  operationName: string | null | undefined,
): { ok: true; operation: OperationDefinitionNode } | { ok: false; error: GraphQLError } {
  const operation = getOperationAST(document, operationName);
  if (operation) return { ok: true, operation };
  const names = document.definitions
    .filter((definition) => definition.kind === Kind.OPERATION_DEFINITION)
    .map((definition) => definition.name?.value)
    .filter((name) => name !== undefined);
  const held = names.length > 0 ? ` (it holds ${names.map((name) => JSON.stringify(name)).join(', ')})` : '';
  const message =
    operationName === undefined || operationName === null
      ? 'the document holds several operations: name the one to run with operationName'
      : `the document holds no operation named ${JSON.stringify(operationName)}${held}: name one of its operations with operationName`;
  return { ok: false, error: new GraphQLError(message, { extensions: { code: REQUEST_INVALID } }) };
}

/**
 * The result of an execution, its errors coded as variable errors when graphql-js refused to run
 * the operation at all (it then answers errors and no `data`: the request's variables did not
 * fit the operation's definitions; the operation itself was chosen before, by chooseOperation).
 */
export function codeVariableErrors<T extends { data?: unknown; errors?: readonly GraphQLError[] }>(result: T): T {
  if ('data' in result || !result.errors) return result;
  return { ...result, errors: result.errors.map((error) => withCode(error, VARIABLES_INVALID)) };
}

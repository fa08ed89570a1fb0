/**
 * The GraphQL-over-HTTP handler (graphql-http's server-agnostic `createHandler`), with the
 * service's rules plugged into its hooks. Protocol answers are returned as `[body, init]`,
 * never thrown (graphql-http's style); a throw is a bug and becomes a 500 in the adapter.
 *
 * - Media types, methods, status codes: graphql-http (GET and POST; `application/json` and
 *   `application/graphql-response+json`; mutations over GET refused with 405).
 * - No batching: a JSON array body is refused with 400 `APP_GRAPHQL_BATCHING_UNSUPPORTED`.
 * - Limits and introspection (operation.ts): their refusals are 400 whatever the media type
 *   (for `application/json` the GraphQL-over-HTTP spec recommends 200 for validation errors;
 *   these are not the client's document being wrong but the server refusing to run it).
 * - Field errors masked (masking.ts) with the request id; with introspection off, no message
 *   suggests the schema's names (introspection.ts).
 * - Every error carries an `extensions.code` (protocol-codes.ts): syntax and validation errors
 *   get theirs in `prepare`, variable errors as the operation is refused, and what graphql-http
 *   raises itself in `formatError`, which every error of every answer passes through; its checks
 *   of the request's parameters are refused in the media type the client accepts (graphql-http
 *   would answer them as `application/json` whatever it accepts). A document of several operations without `operationName`
 *   (or naming none of them) is refused saying so, before graphql-http would.
 * - Documents that passed every rule are kept per query text (operation.ts `createPreparer`).
 */
import { GraphQLError, type GraphQLSchema } from 'graphql';
import { createHandler, parseRequestParams, type Handler, type Request, type Response } from 'graphql-http';
import type { Logger } from '../../shared/log/logger.ts';
import type { GraphqlContext, RequestInfo } from './context.ts';
import { withoutSuggestion } from './introspection.ts';
import { maskResult } from './masking.ts';
import { createPreparer, type OperationRules } from './operation.ts';
import { chooseOperation, codeVariableErrors, REQUEST_INVALID, withCode } from './protocol-codes.ts';

export const BATCHING_UNSUPPORTED = 'APP_GRAPHQL_BATCHING_UNSUPPORTED';

/** The answer's media type, chosen from `Accept` as graphql-http chooses it (its own default: `application/json`). */
export function responseMediaType(
  accept: string | null | undefined,
): 'application/graphql-response+json' | 'application/json' {
  for (const range of (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const type = range.split(';')[0];
    if (type === 'application/graphql-response+json') return type;
    if (type === 'application/json' || type === 'application/*' || type === '*/*') return 'application/json';
  }
  return 'application/json';
}

const header = (req: Request<unknown, RequestInfo>, name: string): string | null | undefined => {
  const headers = req.headers as { get?: (name: string) => string | null } & Record<string, unknown>;
  if (typeof headers.get === 'function') return headers.get(name);
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : (value as string | undefined);
};

/** A 400 GraphQL answer (`{errors}`) in the media type the client accepts. */
export function refusal(req: Request<unknown, RequestInfo>, errors: readonly GraphQLError[]): Response {
  return [
    JSON.stringify({ errors }),
    {
      status: 400,
      statusText: 'Bad Request',
      headers: { 'content-type': `${responseMediaType(header(req, 'accept'))}; charset=utf-8` },
    },
  ];
}

export interface HandlerSetup {
  schema: GraphQLSchema;
  rules: OperationRules;
  /** The resolvers' context of one request. */
  context(request: RequestInfo): GraphqlContext;
  exposeInternals: boolean;
  log: Logger;
}

/** The handler; `req.context` carries what the transport knows of the caller. */
export function createGraphqlHandler(setup: HandlerSetup): Handler<unknown, RequestInfo> {
  const { schema, rules } = setup;
  const prepare = createPreparer(schema, rules); // documents kept per query text
  return createHandler<unknown, RequestInfo, GraphqlContext>({
    schema,
    async parseRequestParams(req) {
      if (req.method === 'POST') {
        const body = typeof req.body === 'function' ? await req.body() : req.body;
        if (Array.isArray(body)) {
          return refusal(req, [
            new GraphQLError('batching is not supported: send one operation per request', {
              extensions: { code: BATCHING_UNSUPPORTED },
            }),
          ]);
        }
      }
      // graphql-http's own parser; what it throws (no query, a parameter of the wrong type) it
      // would answer as application/json whatever the client accepts: answered here in the accepted type
      try {
        return await parseRequestParams(req);
      } catch (error) {
        return refusal(req, [withCode(error as Error, REQUEST_INVALID)]);
      }
    },
    onSubscribe(req, params) {
      const prepared = prepare(params);
      if (!prepared.ok) return prepared.refused ? refusal(req, prepared.errors) : prepared.errors;
      // before graphql-http's own check, whose "Unable to detect operation AST" says nothing of what to send
      const chosen = chooseOperation(prepared.document, params.operationName);
      if (!chosen.ok) return [chosen.error];
      return {
        schema,
        document: prepared.document,
        operationName: params.operationName,
        variableValues: params.variables,
        rootValue: undefined,
        contextValue: setup.context(req.context),
      };
    },
    onOperation(req, _args, result) {
      const masked = maskResult(codeVariableErrors(result), {
        exposeInternals: setup.exposeInternals,
        requestId: req.context.requestId,
        log: setup.log,
      });
      // variables are coerced as the operation starts: their errors name input fields and enum values
      if (rules.introspection || !masked.errors) return masked;
      return { ...masked, errors: masked.errors.map(withoutSuggestion) };
    },
    // every error of an answer passes here: what graphql-http raises itself gets a code too
    formatError: (error) =>
      error instanceof GraphQLError && (error.path || error.extensions?.code)
        ? error
        : withCode(error, REQUEST_INVALID),
  });
}

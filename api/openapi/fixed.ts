/**
 * The endpoints the service mounts itself: the health paths, which need no credentials and run
 * before the limiters, and the GraphQL path (GET and POST per GraphQL over HTTP).
 */
import { READINESS_PATHS } from '../health/middleware.ts';
import { GRAPHQL_RESPONSE_TYPE, JSON_TYPE, ref, type Json } from './components.ts';

const noStore = { 'X-Request-Id': ref('headers', 'XRequestId') };

const liveness: Json = {
  get: {
    operationId: 'health.livez',
    tags: ['health'],
    summary: 'Is the process running',
    description: 'Always 200 while the process can answer; never touches a store. Needs no credentials.',
    security: [],
    responses: {
      200: {
        description: 'The process is running.',
        headers: noStore,
        content: {
          [JSON_TYPE]: {
            schema: {
              type: 'object',
              required: ['status', 'uptime'],
              properties: { status: { type: 'string', const: 'ok' }, uptime: { type: 'number' } },
            },
          },
        },
      },
    },
  },
};

const readiness = (path: string): Json => ({
  get: {
    operationId: `health.${path.replace(/^\/+/, '').replace(/[^A-Za-z0-9]+/g, '_')}`,
    tags: ['health'],
    summary: path === '/_app/health' ? 'Readiness (alias kept for compatibility)' : 'Can the process serve traffic',
    description: 'Readiness: asks every store (two seconds each). Needs no credentials.',
    security: [],
    responses: {
      200: {
        description: 'Ready: every store answered.',
        headers: noStore,
        content: { [JSON_TYPE]: { schema: ref('schemas', 'HealthAnswer') } },
      },
      503: {
        description:
          'Unavailable: booting, shutting down, a store failed or took more than two seconds, or the shared store did not answer (`status` is `unavailable`, `reason` says why).',
        headers: noStore,
        content: { [JSON_TYPE]: { schema: ref('schemas', 'HealthAnswer') } },
      },
    },
  },
});

/** `/livez`, `/readyz`, `/healthz`, `/_app/health`. */
export function healthPaths(): Json {
  return { '/livez': liveness, ...Object.fromEntries([...READINESS_PATHS].map((path) => [path, readiness(path)])) };
}

const graphqlAnswer = (description: string): Json => ({
  description,
  headers: noStore,
  content: {
    [GRAPHQL_RESPONSE_TYPE]: { schema: ref('schemas', 'GraphqlResponse') },
    [JSON_TYPE]: { schema: ref('schemas', 'GraphqlResponse') },
  },
});

/** What both GraphQL methods answer besides their own. */
function graphqlResponses(rateLimited: boolean): Json {
  return {
    200: graphqlAnswer('The result (`data`, and `errors` for field errors).'),
    400: graphqlAnswer(
      'A request GraphQL refuses: syntax, validation, variables, a limit (`extensions.code` e.g. `APP_GRAPHQL_MAX_DEPTH`), batching, introspection when off.',
    ),
    405: ref('responses', 'Problem405'),
    406: ref('responses', 'Problem406'),
    413: ref('responses', 'Problem413'),
    ...(rateLimited ? { 429: ref('responses', 'Problem429') } : {}),
    503: ref('responses', 'Problem503'),
  };
}

const query = (name: string, required: boolean, description: string): Json => ({
  name,
  in: 'query',
  required,
  description,
  schema: { type: 'string' },
});

/** The GraphQL path (`config.graphql.path`): GET for queries, POST for queries and mutations. */
export function graphqlPath(path: string, options: { rateLimited: boolean; idempotency: boolean }): Json {
  const security = [{}, { bearer: [] }]; // anonymous or a bearer token; the resolvers decide
  return {
    [path]: {
      get: {
        operationId: 'graphql.get',
        tags: ['graphql'],
        summary: 'Run a GraphQL query (queries only; a mutation over GET is 405)',
        security,
        parameters: [
          query('query', true, 'The GraphQL document.'),
          query('variables', false, 'Variables as JSON text.'),
          query('operationName', false, 'The operation to run.'),
        ],
        responses: graphqlResponses(options.rateLimited),
      },
      post: {
        operationId: 'graphql.post',
        tags: ['graphql'],
        summary: 'Run a GraphQL query or mutation',
        description: '`Idempotency-Key` is honoured on mutations exactly as on REST mutations; queries ignore it.',
        security,
        ...(options.idempotency ? { parameters: [ref('parameters', 'IdempotencyKey')] } : {}),
        requestBody: { required: true, content: { [JSON_TYPE]: { schema: ref('schemas', 'GraphqlRequest') } } },
        responses: {
          ...graphqlResponses(options.rateLimited),
          415: ref('responses', 'Problem415'),
          ...(options.idempotency ? { 409: ref('responses', 'Problem409'), 422: ref('responses', 'Problem422') } : {}),
        },
      },
    },
  };
}

/**
 * The shared components of the OpenAPI description: HAL link and envelopes, the problem+json body,
 * the health answer, the GraphQL request and answer, the headers and parameters every route reuses,
 * one response per problem status, and the bearer security scheme.
 */

import { versionedMediaType } from '../http/not-acceptable.ts';

/** A JSON Schema (or OpenAPI object) as plain data. */
export type Json = Record<string, unknown>;

/** `{$ref}` to a component: `ref('schemas', 'Problem')`. */
export const ref = (kind: 'schemas' | 'parameters' | 'headers' | 'responses', name: string): Json => ({
  $ref: `#/components/${kind}/${name}`,
});

/** A HAL collection of `item` under `_embedded.<type>`. */
export const collectionOf = (type: string, item: string): Json => ({
  allOf: [
    ref('schemas', 'HalCollection'),
    {
      type: 'object',
      properties: {
        _embedded: {
          type: 'object',
          required: [type],
          properties: { [type]: { type: 'array', items: ref('schemas', item) } },
        },
      },
    },
  ],
});

/** Media types the HAL routes answer with, the versioned one included. */
export const JSON_TYPE = 'application/json';
export const HAL_TYPE = 'application/hal+json';
export const PROBLEM_TYPE = 'application/problem+json';
export const GRAPHQL_RESPONSE_TYPE = 'application/graphql-response+json';
/** `application/vnd.app.v1+json` for version `v1`. */
export const versionedType = versionedMediaType;

/** Statuses a problem+json answer is described for, with what the service means by each. */
export const PROBLEM_STATUSES: Readonly<Record<number, string>> = {
  400: 'The request is not valid: malformed body or bytes that are not UTF-8 (`APP_BODY_INVALID`), bad paging (`APP_PAGINATION_INVALID`) or `Idempotency-Key` (`APP_API_IDEMPOTENCY_KEY_INVALID`).',
  401: 'No credentials (`APP_UNAUTHENTICATED`) or an unknown, revoked, expired or malformed bearer token (`APP_TOKEN_INVALID`).',
  403: "The caller's role may not use this action (`APP_FORBIDDEN`), or a cookie-authenticated write lacks its CSRF token or comes from another site (`APP_CSRF_INVALID`).",
  404: "No record with this id in the caller's reach.",
  405: 'Method not allowed on this path (`APP_METHOD_NOT_ALLOWED`).',
  406: 'The client asked for an API version the route does not serve (`APP_VERSION_NOT_ACCEPTABLE`; `data.version` is the one served, `data.requested` the one asked for, `data.mediaTypes` what to accept instead), or accepts none of the media types the path answers (`APP_NOT_ACCEPTABLE`; `data.mediaTypes`).',
  409: "The same `Idempotency-Key` is still in flight (`APP_API_IDEMPOTENCY_IN_PROGRESS`), or the record's state refuses the action.",
  412: "An `If-Match` other than `*` on a write of the webhook or token API, or of a model's generic controller: their ETags are weak and never satisfy it; nothing was changed (`APP_PRECONDITION_FAILED`).",
  413: 'The request body is larger than `bodyLimit` (`APP_BODY_TOO_LARGE`).',
  415: "The request body's media type is not accepted: not JSON (or a form where one is taken), JSON sent as a form, a charset other than UTF-8 (`APP_BODY_MEDIA_TYPE_UNSUPPORTED`), or an unknown `Content-Encoding` (`APP_BODY_ENCODING_UNSUPPORTED`).",
  422: "A field is not valid, a query parameter is not one the route accepts (`APP_QUERY_PARAMETER_UNKNOWN`; `data.parameter`, `data.accepted`), a body field is not one the route takes (the webhook and token APIs, a model's generic create and update; `APP_BODY_FIELD_UNKNOWN`; `data.field`, `data.accepted`), the same `Idempotency-Key` came with another method, path or body (`APP_API_IDEMPOTENCY_KEY_REUSED`), or a page of a listing (events, deliveries, endpoints, event types, tokens, a model's generic index) starts past `api.maxPageOffset` records (`APP_PAGE_TOO_DEEP`; `data.deepestPage`).",
  429: 'Rate limit exceeded (`APP_API_RATE_LIMITED`); `data` is `{limit, retryAfter, windowMs}`. Or the client already has `bodiesInFlight` bytes of bodies being received (`APP_BODIES_IN_FLIGHT`; `data` is `{inFlight, limit}`); the body was not read. Or an emit would take the emits under way of its tenant past `webhooks.maxFanoutBytes` together (`APP_WEBHOOK_FANOUT_BUSY`; `data` is `{limit, bytes, inFlight}`); nothing was written.',
  503: 'The database cannot be reached or refuses the work for now (`APP_DATABASE_UNAVAILABLE`, `APP_DATABASE_READ_ONLY`, `APP_DATABASE_BUSY`), the request ran longer than `requestTimeout`, the shared store did not answer (`APP_STORE_SHARED_UNAVAILABLE`), or an endpoint store did not (`APP_STORE_UNAVAILABLE`) or has no endpoint table (`APP_STORE_NOT_INSTALLED`).',
};

const string = { type: 'string' };
const integer = { type: 'integer', minimum: 0 };

const HalLink: Json = {
  type: 'object',
  description: 'A HAL link object.',
  required: ['href'],
  properties: {
    href: { type: 'string', description: 'Target path (relative to the server).' },
    method: {
      type: 'string',
      enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      description: 'HTTP method when it is not GET.',
    },
    templated: { type: 'boolean' },
    title: string,
  },
};

const HalLinks: Json = {
  type: 'object',
  description:
    "Relation -> link (or list of links); only the links the caller's roles and the models' policies admit. A record's reference (an `ObjectId` field) is also a link named after the field, to the referenced record.",
  additionalProperties: { oneOf: [ref('schemas', 'HalLink'), { type: 'array', items: ref('schemas', 'HalLink') }] },
  properties: {
    self: ref('schemas', 'HalLink'),
    collection: ref('schemas', 'HalLink'),
    edit: ref('schemas', 'HalLink'),
    update: ref('schemas', 'HalLink'),
    destroy: ref('schemas', 'HalLink'),
  },
};

const HalResource: Json = {
  type: 'object',
  description: 'A HAL resource: `_links`, `externalId` (the public identifier) and the public fields of the record.',
  required: ['_links'],
  properties: {
    _links: ref('schemas', 'HalLinks'),
    externalId: {
      type: ['string', 'null'],
      description: 'Public identifier of the record; the primary key never leaves the server.',
    },
  },
  additionalProperties: true,
};

const HalCollection: Json = {
  type: 'object',
  description:
    'A page of HAL resources: paging links (`self`, `first`, `prev`, `next`, `last` with `?page=&per_page=`), `create`/`new` for callers who may, `_embedded.<type>` and the counters.',
  required: ['_links', '_embedded', 'count', 'page', 'perPage', 'total'],
  properties: {
    _links: {
      allOf: [ref('schemas', 'HalLinks')],
      properties: {
        first: ref('schemas', 'HalLink'),
        prev: ref('schemas', 'HalLink'),
        next: ref('schemas', 'HalLink'),
        last: ref('schemas', 'HalLink'),
        create: ref('schemas', 'HalLink'),
        new: ref('schemas', 'HalLink'),
      },
    },
    _embedded: { type: 'object', additionalProperties: { type: 'array', items: ref('schemas', 'HalResource') } },
    count: { ...integer, description: 'Items in this page.' },
    page: { type: 'integer', minimum: 1 },
    perPage: { type: 'integer', minimum: 1 },
    total: {
      ...integer,
      description:
        'Records matching the filters. The event and delivery listings count when PostgreSQL expects at most `api.exactTotal` (10,000 by default) matches and answer its estimate past it.',
    },
    totalEstimated: {
      type: 'boolean',
      description:
        "Event and delivery listings: `total` is PostgreSQL's estimate (it expects more than `api.exactTotal` matches). Absent from other listings, whose total is always exact.",
    },
  },
};

const Problem: Json = {
  type: 'object',
  description: 'RFC 9457 problem details; `code` is the stable error code, `data` its details.',
  required: ['type', 'title', 'status', 'detail'],
  properties: {
    type: { type: 'string', default: 'about:blank' },
    title: { type: 'string', description: 'The status text.' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    detail: string,
    code: { type: 'string', pattern: '^APP_[A-Z0-9_]+$', examples: ['APP_API_RATE_LIMITED'] },
    data: { type: 'object', additionalProperties: true },
    requestId: { type: 'string', description: 'The `X-Request-Id` of the request.' },
  },
};

const StoreReport: Json = {
  type: 'object',
  required: ['ok'],
  properties: {
    adapter: string,
    ok: { type: 'boolean' },
    latency: { type: 'number', description: 'Milliseconds the store took to answer.' },
    error: { type: 'string', enum: ['timeout', 'unreachable', 'not-installed', 'unusable'] },
    reason: { type: 'string', description: 'With `unusable`: what is wrong with the store as configured.' },
  },
};

const HealthAnswer: Json = {
  type: 'object',
  required: ['status', 'uptime'],
  properties: {
    status: { type: 'string', enum: ['ok', 'unavailable'] },
    reason: {
      type: 'string',
      description:
        'Why the process is unavailable: `starting`, `shutting down`, `store <name> did not answer`, `store <name> has no endpoint table: run app webhooks:install`, `store <name> cannot be used: <why>`, `shared store did not answer`.',
    },
    stores: { type: 'object', additionalProperties: ref('schemas', 'StoreReport') },
    shared: ref('schemas', 'StoreReport'),
    uptime: { type: 'number', description: 'Seconds since the process started.' },
  },
};

const GraphqlRequest: Json = {
  type: 'object',
  required: ['query'],
  properties: {
    query: string,
    variables: { type: ['object', 'null'], additionalProperties: true },
    operationName: { type: ['string', 'null'] },
    extensions: { type: ['object', 'null'], additionalProperties: true },
  },
};

const GraphqlResponse: Json = {
  type: 'object',
  description: 'A GraphQL answer: `data` and/or `errors` (each with `message`, `path`, `extensions.code`).',
  properties: {
    data: { type: ['object', 'null'], additionalProperties: true },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['message'],
        properties: {
          message: string,
          path: { type: 'array', items: { type: ['string', 'integer'] } },
          locations: { type: 'array', items: { type: 'object' } },
          extensions: { type: 'object', additionalProperties: true },
        },
      },
    },
    extensions: { type: 'object', additionalProperties: true },
  },
};

const header = (description: string, schema: Json = string, required = false): Json => ({
  description,
  ...(required ? { required } : {}),
  schema,
});

const HEADERS: Json = {
  XRequestId: header('The request id: taken from the client or generated; echoed on every answer.', string, true),
  ETag: header('Weak entity tag of the JSON answer; send it back in `If-None-Match` for a 304.', string, true),
  Location: header('Path of the created resource (its `self` link).', string, true),
  Link: header(
    'The paging links (`next`, `prev`, `first`, `last`, `self`) as an RFC 8288 `Link` header, at most 2,048 characters: links that do not fit are left out in the reverse of that order, and the header is absent when not even the first fits (`_links` in the body always has them all).',
  ),
  XTotalCount: header(
    "Total number of items across all pages (the body's `total`: for event and delivery listings past `api.exactTotal`, PostgreSQL's estimate, and the body says `totalEstimated`).",
    { type: 'integer', minimum: 0 },
  ),
  RateLimit: header(
    'Draft-7 `RateLimit`: `limit=<n>, remaining=<n>, reset=<seconds>`; on every answer of a rate-limited route, its refusals included.',
  ),
  RateLimitPolicy: header(
    'Draft-7 `RateLimit-Policy`: `<limit>;w=<window seconds>`; on every answer of a rate-limited route, its refusals included.',
  ),
  RetryAfter: header('Seconds to wait before trying again.', { type: 'integer', minimum: 0 }),
  IdempotencyReplayed: header('`true` when this is the stored first answer to the same `Idempotency-Key`.', {
    type: 'string',
    enum: ['true'],
  }),
  WWWAuthenticate: header('`Bearer realm="app"` (with `error="invalid_token"` for a bad token).'),
};

const PARAMETERS: Json = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes the mutation safe to retry: the first answer is replayed for the same key (per caller) until it expires.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
  },
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: 'An `ETag` of an earlier answer; a match answers 304.',
    schema: string,
  },
  Page: {
    name: 'page',
    in: 'query',
    required: false,
    description: 'Page number (from 1).',
    schema: { type: 'integer', minimum: 1, default: 1 },
  },
  PerPage: {
    name: 'per_page',
    in: 'query',
    required: false,
    description: 'Items per page (`api.perPage` by default, at most `api.maxPerPage`).',
    schema: { type: 'integer', minimum: 1 },
  },
};

/** One response component per problem status (`Problem404`…), with the headers each carries. */
function problemResponses(): Json {
  const responses: Json = {};
  for (const [status, description] of Object.entries(PROBLEM_STATUSES)) {
    // a problem is a JSON answer too: it carries its weak ETag like any other
    const headers: Json = { 'X-Request-Id': ref('headers', 'XRequestId'), ETag: ref('headers', 'ETag') };
    if (status === '401') headers['WWW-Authenticate'] = ref('headers', 'WWWAuthenticate');
    if (status === '409' || status === '429' || status === '503') headers['Retry-After'] = ref('headers', 'RetryAfter');
    // a limiter counts a refused request too, so a rate-limited route's problems carry its headers
    Object.assign(headers, {
      RateLimit: ref('headers', 'RateLimit'),
      'RateLimit-Policy': ref('headers', 'RateLimitPolicy'),
    });
    responses[`Problem${status}`] = {
      description,
      headers,
      content: { [PROBLEM_TYPE]: { schema: ref('schemas', 'Problem') } },
    };
  }
  responses.NotModified = {
    description: 'Not modified: `If-None-Match` matches the weak ETag.',
    headers: { ETag: ref('headers', 'ETag'), 'X-Request-Id': ref('headers', 'XRequestId') },
  };
  return responses;
}

/** The shared components; the model and webhook schemas are added beside them. */
export function sharedComponents(): {
  schemas: Json;
  parameters: Json;
  headers: Json;
  responses: Json;
  securitySchemes: Json;
} {
  return {
    schemas: {
      HalLink,
      HalLinks,
      HalResource,
      HalCollection,
      Problem,
      StoreReport,
      HealthAnswer,
      GraphqlRequest,
      GraphqlResponse,
    },
    parameters: PARAMETERS,
    headers: HEADERS,
    responses: problemResponses(),
    securitySchemes: {
      bearer: {
        type: 'http',
        scheme: 'bearer',
        description:
          'An API token (`app_tok_…`) made with `tokens:create` or `POST /api/v1/tokens`: `Authorization: Bearer <token>`.',
      },
      session: {
        type: 'apiKey',
        in: 'cookie',
        name: 'app_session',
        description:
          'The sign-in session cookie set by `POST /login` (`__Host-app_session` in production); unsafe requests also need `X-CSRF-Token`.',
      },
    },
  };
}

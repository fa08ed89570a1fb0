/** The token API's schemas and operations (api/tokens-api/), keyed like the webhook API's. */
import { ROLES } from '../../shared/tokens/roles.ts';
import { collectionOf, ref, type Json } from './components.ts';
import type { WebhookOperation } from './webhooks.ts';

const string = { type: 'string' };
const nullableString = { type: ['string', 'null'] };
const nullableTime = { type: ['string', 'null'], format: 'date-time' };
const role = { type: 'string', enum: [...ROLES] };

const tokenProperties = {
  externalId: { type: 'string', pattern: '^tok_' },
  name: string,
  role,
  owner: { ...nullableString, description: 'The tenant a member or viewer token is bound to; null for admin tokens.' },
  prefix: { type: 'string', description: 'The first characters of the token, to recognise it.' },
  createdAt: { type: 'string', format: 'date-time' },
  expiresAt: nullableTime,
  lastUsedAt: nullableTime,
  revokedAt: nullableTime,
};

export const TOKEN_SCHEMAS: Json = {
  Token: {
    allOf: [ref('schemas', 'HalResource')],
    type: 'object',
    description: 'An API token (never its text), with a `destroy` link while it is in use.',
    required: Object.keys(tokenProperties),
    properties: tokenProperties,
  },
  TokenCreated: {
    allOf: [ref('schemas', 'Token')],
    type: 'object',
    required: ['token'],
    properties: {
      token: {
        type: 'string',
        pattern: '^app_tok_',
        description: 'The token text, shown this once: send it as `Authorization: Bearer <token>`.',
      },
    },
  },
  TokenCreate: {
    type: 'object',
    required: ['name'],
    additionalProperties: false,
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 100, description: 'Who or what uses the token.' },
      role: { ...role, description: "Default: the caller's role; at most the caller's (admin > member > viewer)." },
      owner: { ...nullableString, description: "Default: the caller's owner; only admins name another." },
      expiresInMs: {
        type: ['integer', 'null'],
        minimum: 1,
        description: 'Lifetime in milliseconds (default: until revoked).',
      },
    },
  },
};

export const TOKEN_OPERATIONS: Readonly<Record<string, WebhookOperation>> = {
  'tokens.index': {
    summary: "List the caller's API tokens in use (admins: every token)",
    status: 200,
    answer: collectionOf('tokens', 'Token'),
  },
  'tokens.create': {
    summary: "Mint an API token, at most the caller's role and owner (the answer carries its text, this once)",
    status: 201,
    answer: ref('schemas', 'TokenCreated'),
    body: 'TokenCreate',
    unaddressed: true, // a token is listed and revoked, never shown on its own
  },
  'tokens.destroy': {
    summary: "Revoke an API token (another user's is not found)",
    status: 200,
    answer: ref('schemas', 'Token'),
  },
};

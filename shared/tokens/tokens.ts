/**
 * API tokens: `createToken` (the token text is answered this once), `listTokens`, `revokeToken`
 * and `verifyToken` (what bearer authentication asks, through the web process's token cache,
 * shared/tokens/cache.ts). The same functions serve the `tokens:*` commands and the web process.
 */
import { isIdText } from '../webhooks/ids.ts';
import { notFound, unauthorized, unprocessable } from '../errors/app-error.ts';
import type { Sql } from '../db/connect.ts';
import type { Logger } from '../log/logger.ts';
import { assertOwner, assertOwnerFilter } from '../webhooks/endpoints/fields.ts';
import { ulid } from '../webhooks/ids.ts';
import { generateToken, looksLikeToken, shownPrefix, tokenDigest } from './format.ts';
import { roleOwnerProblem, type Role } from './roles.ts';
import { insertToken, revokeRow, selectTokens, selectUsableByDigest, touchRow, type TokenRow } from './store.ts';
import { clip, describeValue } from '../errors/describe-value.ts';
import { isStoredAsGiven } from '../db/storable-text.ts';
import { hasControlCharacter } from '../security/control-characters.ts';
import type { TokenCache } from './cache.ts';

export interface TokenDeps {
  sql: Sql;
  log: Logger;
  /** The web process's token cache: bearer authentication reads through it, a revocation drops the token from it before answering. */
  tokenCache?: TokenCache;
}

/** A token as listings show it (never its text or digest). */
export interface ApiToken {
  /** `tok_…`; what `tokens:revoke` takes, and the principal id of requests made with it. */
  id: string;
  name: string;
  role: Role;
  /** The tenant a member or viewer token is bound to; null for admin tokens. */
  owner: string | null;
  /** The first characters of the token, to recognise it. */
  prefix: string;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** The user who minted it over the API (revoked with the user's disabling); null for tokens made by the CLI. */
  userId: string | null;
}

/** A token just made: the record and, this once, the token text. */
export type CreatedToken = ApiToken & { token: string };

export interface CreateTokenInput {
  /** A label saying who or what uses the token (1 to 100 characters). */
  name: string;
  role: Role;
  /** Required for member and viewer tokens; refused for admin tokens (they reach every tenant). */
  owner?: string | null;
  /** Lifetime in milliseconds (absent: until revoked). */
  expiresInMs?: number | null;
}

/** Longest lifetime accepted (ten years). */
export const MAX_TOKEN_LIFETIME_MS = 10 * 365 * 86_400_000;
export const MAX_TOKEN_NAME_LENGTH = 100;
/** A use is recorded at most this often per token. */
export const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Whether `token` is past its expiry at `at`: it authenticates nothing any more (the lookup by
 * digest and the token cache hold it so), though it is listed until revoked.
 */
export const tokenExpired = (token: Pick<ApiToken, 'expiresAt'>, at: Date): boolean =>
  token.expiresAt !== null && token.expiresAt.getTime() <= at.getTime();

export const toToken = (row: TokenRow): ApiToken => ({
  id: row.id,
  name: row.name,
  role: row.role,
  owner: row.owner,
  prefix: row.prefix,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  lastUsedAt: row.last_used_at,
  revokedAt: row.revoked_at,
  userId: row.user_id,
});

/**
 * What every face answers of a token (REST `/api/v1/tokens` adds its links; `tokens:* --json`):
 * its own id as `externalId`, never its digest, its text only in the answer that made it. Who
 * minted it (`userId`) is not shown: a revocation follows it, no client needs it.
 */
export const publicToken = (token: ApiToken & { token?: string }) => ({
  externalId: token.id,
  name: token.name,
  role: token.role,
  owner: token.owner,
  prefix: token.prefix,
  createdAt: token.createdAt,
  expiresAt: token.expiresAt,
  lastUsedAt: token.lastUsedAt,
  revokedAt: token.revokedAt,
  ...(token.token === undefined ? {} : { token: token.token }),
});

/** AppError 422 `APP_TOKEN_FIELD_INVALID` naming the field. */
const invalid = (field: string, reason: string, value?: unknown) =>
  unprocessable(`invalid API token ${field}: ${reason}`, {
    code: 'APP_TOKEN_FIELD_INVALID',
    data: { field, reason, ...(value === undefined ? {} : { value }) },
  });

/** AppError 404 `APP_TOKEN_NOT_FOUND`. */
export const tokenNotFound = (id: unknown) =>
  notFound(`API token ${typeof id === 'string' ? clip(id) : describeValue(id)} does not exist`, {
    code: 'APP_TOKEN_NOT_FOUND',
    data: { id },
  });

function checkInput(
  input: CreateTokenInput,
  ownerStored: boolean,
): {
  name: string;
  role: Role;
  owner: string | null;
  expiresInMs: number | null;
} {
  const given = (input ?? {}) as Partial<CreateTokenInput>;
  const name = typeof given.name === 'string' ? given.name.trim() : given.name;
  if (typeof name !== 'string' || name.length === 0) throw invalid('name', 'must be a non-empty string');
  if (name.length > MAX_TOKEN_NAME_LENGTH) throw invalid('name', `must be at most ${MAX_TOKEN_NAME_LENGTH} characters`);
  if (hasControlCharacter(name)) throw invalid('name', 'must not contain control characters');
  if (!isStoredAsGiven(name)) throw invalid('name', 'must not contain a lone UTF-16 surrogate');
  // an owner stored before (the minting member's own) by the rules every stored owner kept
  const owner = ownerStored ? assertOwnerFilter(given.owner) : assertOwner(given.owner);
  const problem = roleOwnerProblem(given.role, owner, 'token');
  if (problem)
    throw invalid(problem.field, problem.reason, problem.field === 'role' ? given.role : (owner ?? undefined));
  const role = given.role as Role;
  const expires = given.expiresInMs ?? null;
  if (
    expires !== null &&
    !(typeof expires === 'number' && Number.isInteger(expires) && expires > 0 && expires <= MAX_TOKEN_LIFETIME_MS)
  ) {
    throw invalid(
      'expiresInMs',
      `must be a whole number of milliseconds from 1 to ${MAX_TOKEN_LIFETIME_MS} (ten years)`,
      expires,
    );
  }
  return { name, role, owner, expiresInMs: expires };
}

/**
 * Makes a token and answers it with its text, which is never stored nor shown again (only its
 * SHA-256 digest is kept). Throws 422 `APP_TOKEN_FIELD_INVALID` (`data.field`: name, role, owner,
 * expiresInMs) or `APP_WEBHOOK_OWNER_INVALID` for an unusable owner value. `ownerStored`: the
 * owner is one stored before (a member minting for its own), held only to the rules every stored
 * owner kept, so a tenant whose owner predates the whitespace rule still mints. A token of user
 * `userId` is made only while that user is enabled: 401 `APP_UNAUTHENTICATED` when it was disabled
 * while the request ran (store.ts `insertToken`).
 */
export async function createToken(
  deps: TokenDeps,
  input: CreateTokenInput,
  options: { userId?: string | null; ownerStored?: boolean } = {},
): Promise<CreatedToken> {
  const checked = checkInput(input, options.ownerStored === true);
  const token = generateToken();
  const row = await insertToken(deps.sql, {
    id: `tok_${ulid()}`,
    ...checked,
    prefix: shownPrefix(token),
    digest: tokenDigest(token),
    userId: options.userId ?? null,
  });
  // the minting user was disabled while the request ran: its session has ended, and so has its reach
  if (!row)
    throw unauthorized('the signed-in user was disabled while this request ran; no token was made', {
      code: 'APP_UNAUTHENTICATED',
      data: { reason: 'user disabled' },
    });
  deps.log.info({ tokenId: row.id, role: row.role, owner: row.owner }, 'API token created');
  return { ...toToken(row), token };
}

/** Tokens in creation order: those in use, or with `includeRevoked` every one. Never their text. */
export async function listTokens(
  deps: Pick<TokenDeps, 'sql'>,
  options: { includeRevoked?: boolean } = {},
): Promise<ApiToken[]> {
  return (await selectTokens(deps.sql, { includeRevoked: options.includeRevoked === true })).map(toToken);
}

/**
 * Revokes token `id`: requests carrying it are refused (401) from now on, in every process (each
 * web process drops it from its token cache when the revocation's notice arrives, this one at
 * once). Revoking a revoked token answers it unchanged. Throws 404 `APP_TOKEN_NOT_FOUND`.
 */
export async function revokeToken(deps: TokenDeps, id: string): Promise<ApiToken> {
  if (!isIdText(id)) throw tokenNotFound(id);
  const row = await revokeRow(deps.sql, id);
  if (row === undefined) throw tokenNotFound(id);
  deps.tokenCache?.forget([id]);
  deps.log.info({ tokenId: id }, 'API token revoked');
  return toToken(row);
}

/**
 * The token whose text this is, when it exists and is neither revoked nor expired; else null
 * (the caller answers 401 without saying which), read from the table. Records the use, at most
 * once a minute, without waiting for it.
 */
export async function verifyToken(deps: TokenDeps, text: unknown): Promise<ApiToken | null> {
  if (!looksLikeToken(text)) return null;
  const row = await selectUsableByDigest(deps.sql, tokenDigest(text));
  if (row === undefined) return null;
  recordUse(deps, row.id, row.last_used_at?.getTime() ?? -Infinity, Date.now());
  return toToken(row);
}

/**
 * Records a use of token `id` at `at` when the last one recorded (`lastUsed`, milliseconds) is a
 * minute old or more, without waiting for it; answers whether it did.
 */
export function recordUse(deps: Pick<TokenDeps, 'sql' | 'log'>, id: string, lastUsed: number, at: number): boolean {
  if (at - lastUsed < LAST_USED_RESOLUTION_MS) return false;
  touchRow(deps.sql, id, LAST_USED_RESOLUTION_MS).catch((error: unknown) =>
    deps.log.warn({ err: error, tokenId: id }, 'could not record the use of an API token'),
  );
  return true;
}

/**
 * Tokens managed over the API (issue 13, `/api/v1/tokens`): who may mint which token, list and
 * revoke. A principal mints at most its own reach: an admin any role for any owner; a member a
 * member or viewer token of its own owner; a viewer a viewer token of its own owner. A token
 * minted by a signed-in user belongs to that user (it is revoked when the user is disabled);
 * non-admins see and revoke only the tokens they minted, and another's token is "not found".
 */
import { forbidden } from '../errors/app-error.ts';
import { isIdText } from '../webhooks/ids.ts';
import type { Principal, UserPrincipal } from './principal.ts';
import { ALL_TENANT_ROLES, ROLES, type Role } from './roles.ts';
import { countTokens, revokeRow, selectTokenById, selectTokens } from './store.ts';
import { createToken, tokenNotFound, toToken, type ApiToken, type CreatedToken, type CreateTokenInput, type TokenDeps } from './tokens.ts';

const isAdmin = (principal: Principal) => principal.roles.some((role) => (ALL_TENANT_ROLES as readonly string[]).includes(role));

/** Rank of a role: a principal mints roles of its rank or below (admin 0 > member 1 > viewer 2). */
const rank = (role: string) => (ROLES as readonly string[]).indexOf(role);

const userIdOf = (principal: Principal): string | null => ((principal as UserPrincipal).kind === 'user' ? (principal as UserPrincipal).userId : null);

/** The tokens a principal may list and revoke: every one for admins, else those its user minted (none for a token principal). */
const reach = (principal: Principal): { userId?: string } => (isAdmin(principal) ? {} : { userId: userIdOf(principal) ?? '\u0000none' });

/**
 * Mints a token for `principal`. `role` defaults to the principal's, `owner` to its owner (an
 * admin minting an admin token gives none). Throws 403 `APP_FORBIDDEN` beyond its reach, and what
 * {@link createToken} throws for bad fields.
 */
export function mintToken(deps: TokenDeps, principal: Principal, input: Partial<CreateTokenInput>): Promise<CreatedToken> {
  const own = principal.roles[0] as Role;
  const role = (input.role ?? own) as Role;
  const admin = isAdmin(principal);
  const owner = input.owner === undefined ? (admin ? null : principal.owner ?? null) : input.owner;
  if (!admin) {
    if (userIdOf(principal) === null) throw forbidden('only signed-in users and admins mint tokens over the API', { code: 'APP_FORBIDDEN', data: { reason: 'token principal' } });
    if (rank(role) >= 0 && rank(role) < rank(own)) throw forbidden(`a ${own} may not mint a ${role} token`, { code: 'APP_FORBIDDEN', data: { field: 'role' } });
    if (owner !== principal.owner) throw forbidden('a token may only be minted for your own owner', { code: 'APP_FORBIDDEN', data: { field: 'owner' } });
  }
  return createToken(deps, { name: input.name as string, role, owner, expiresInMs: input.expiresInMs ?? null }, { userId: userIdOf(principal) });
}

/** A page of the tokens in the principal's reach (not revoked), oldest first, with the total. */
export async function listTokensFor(deps: TokenDeps, principal: Principal, window: { page: number; perPage: number }): Promise<{ records: ApiToken[]; total: number }> {
  const filter = { includeRevoked: false, ...reach(principal) };
  const [rows, total] = await Promise.all([
    selectTokens(deps.sql, { ...filter, limit: window.perPage, offset: (window.page - 1) * window.perPage }),
    countTokens(deps.sql, filter),
  ]);
  return { records: rows.map(toToken), total };
}

/** Revokes a token in the principal's reach. Throws 404 `APP_TOKEN_NOT_FOUND` for others' tokens as for unknown ones. */
export async function revokeTokenFor(deps: TokenDeps, principal: Principal, id: string): Promise<ApiToken> {
  if (!isIdText(id)) throw tokenNotFound(id);
  const row = await selectTokenById(deps.sql, id);
  const { userId } = reach(principal);
  if (!row || (userId !== undefined && row.user_id !== userId)) throw tokenNotFound(id);
  const revoked = await revokeRow(deps.sql, id);
  if (!revoked) throw tokenNotFound(id);
  deps.log.info({ tokenId: id, by: principal.id }, 'API token revoked');
  return toToken(revoked);
}

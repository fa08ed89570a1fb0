/**
 * Tokens as every face manages them (`/api/v1/tokens`, the console, `tokens:*`): who may mint
 * which token, list and revoke. Minting and revoking are for admins and members
 * (shared/access/permissions.ts); an actor mints at most its own reach: an admin (the operator
 * too) any role for any owner; a member, signed in, a member or viewer token of its own owner.
 * A token minted by a signed-in user belongs to that user (it is revoked when the user is
 * disabled), and so does one minted with a token of that user: an admin token cannot mint the
 * disabled user a way back in. Non-admins see and revoke only the tokens they minted, and
 * another's token is "not found".
 */
import { forbidden } from '../errors/app-error.ts';
import type { Config } from '../config/index.ts';
import { pageOffset } from '../db/page-depth.ts';
import { isIdText } from '../webhooks/ids.ts';
import { allows, authorize, withArticle, type Actor } from '../access/actor.ts';
import { ALL_TENANT_ROLES, ROLES, type Role } from './roles.ts';
import { countTokens, revokeRow, selectTokenById, selectTokens } from './store.ts';
import {
  createToken,
  tokenNotFound,
  toToken,
  type ApiToken,
  type CreatedToken,
  type CreateTokenInput,
  type TokenDeps,
} from './tokens.ts';

const isAdmin = (actor: Actor) => (ALL_TENANT_ROLES as readonly string[]).includes(actor.role);

/** Rank of a role: an actor mints roles of its rank or below (admin 0 > member 1 > viewer 2). */
const rank = (role: string) => (ROLES as readonly string[]).indexOf(role);

/** The tokens an actor may list and revoke: every one for admins (`{}`), else those its user minted; null: none (no user). */
function reach(actor: Actor): { userId?: string } | null {
  if (isAdmin(actor)) return {};
  return actor.userId === null ? null : { userId: actor.userId };
}

/**
 * Whether `actor` may mint a token at all (what decides the mint link and form every face
 * offers): an admin, or a role the permission table lets mint acting as a signed-in user, whom
 * the token will belong to.
 */
export const mayMint = (actor: Actor | undefined): boolean =>
  actor !== undefined && allows(actor, 'tokens.mint') && (isAdmin(actor) || actor.userId !== null);

/**
 * Mints a token for `actor`. `role` defaults to the actor's, `owner` to its owner (an admin
 * minting an admin token gives none). Throws 403 `APP_FORBIDDEN` to a role that may not mint
 * (shared/access/permissions.ts) and beyond its reach: a non-admin mints only as a signed-in user
 * (the token is its user's, revoked with it), only for its own owner, and no role above its own.
 * Throws what {@link createToken} throws for bad fields.
 */
export function mintToken(deps: TokenDeps, actor: Actor, input: Partial<CreateTokenInput>): Promise<CreatedToken> {
  authorize(actor, 'tokens.mint');
  const own = actor.role as Role;
  const role = (input.role ?? own) as Role;
  const admin = isAdmin(actor);
  const ownOwner = actor.scope.kind === 'tenant' ? actor.scope.owner : null;
  const owner = input.owner === undefined ? ownOwner : input.owner;
  if (!mayMint(actor))
    throw forbidden('only signed-in users and admins mint tokens', {
      code: 'APP_FORBIDDEN',
      data: { reason: 'no user' },
    });
  if (!admin) {
    if (rank(role) >= 0 && rank(role) < rank(own))
      throw forbidden(`${withArticle(own)} may not mint ${withArticle(role)} token`, {
        code: 'APP_FORBIDDEN',
        data: { field: 'role' },
      });
    if (owner !== ownOwner)
      throw forbidden('a token may only be minted for your own owner', {
        code: 'APP_FORBIDDEN',
        data: { field: 'owner' },
      });
  }
  return createToken(
    deps,
    { name: input.name as string, role, owner, expiresInMs: input.expiresInMs ?? null },
    // the token belongs to the user the minting credentials belong to (an admin token's minter
    // too), so that user's disabling revokes it; a non-admin mints for its own owner, as stored
    { userId: actor.belongsTo, ownerStored: !admin },
  );
}

/** What the faces that list tokens give: the token dependencies and the paging bound (`api.maxPageOffset`). */
export type TokenListingDeps = TokenDeps & { config: Pick<Config, 'api'> };

/**
 * A page of the tokens in the actor's reach (not revoked), oldest first, with the total. A page
 * past the paging bound is 422 `APP_PAGE_TOO_DEEP` (shared/db/page-depth.ts).
 */
export async function listTokensFor(
  deps: TokenListingDeps,
  actor: Actor,
  window: { page: number; perPage: number },
): Promise<{ records: ApiToken[]; total: number }> {
  authorize(actor, 'tokens.read');
  const offset = pageOffset(window.page, window.perPage, deps.config.api.maxPageOffset, []);
  const mine = reach(actor);
  if (mine === null) return { records: [], total: 0 };
  const filter = { includeRevoked: false, ...mine };
  const [rows, total] = await Promise.all([
    selectTokens(deps.sql, { ...filter, limit: window.perPage, offset }),
    countTokens(deps.sql, filter),
  ]);
  return { records: rows.map(toToken), total };
}

/**
 * Revokes a token in the actor's reach (revoking a revoked token answers it unchanged): requests
 * carrying it are refused (401) from now on, in every process (see {@link revokeToken}). Throws 403 `APP_FORBIDDEN` to a
 * role that may not revoke, 404 `APP_TOKEN_NOT_FOUND` for others' tokens as for unknown ones.
 */
export async function revokeTokenFor(deps: TokenDeps, actor: Actor, id: string): Promise<ApiToken> {
  authorize(actor, 'tokens.revoke');
  if (!isIdText(id)) throw tokenNotFound(id);
  const mine = reach(actor);
  const row = mine === null ? undefined : await selectTokenById(deps.sql, id);
  if (!row || (mine?.userId !== undefined && row.user_id !== mine.userId)) throw tokenNotFound(id);
  const revoked = await revokeRow(deps.sql, id);
  if (!revoked) throw tokenNotFound(id);
  deps.tokenCache?.forget([id]);
  deps.log.info({ tokenId: id, by: actor.id }, 'API token revoked');
  return toToken(revoked);
}

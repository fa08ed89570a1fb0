/**
 * API tokens and principals. See tokens.ts (create, list, revoke, verify), roles.ts
 * (admin, member, viewer), principal.ts (the principal of a request and its tenant scope).
 */
export {
  createToken,
  listTokens,
  publicToken,
  revokeToken,
  verifyToken,
  tokenNotFound,
  MAX_TOKEN_LIFETIME_MS,
  MAX_TOKEN_NAME_LENGTH,
} from './tokens.ts';
export type { ApiToken, CreatedToken, CreateTokenInput, TokenDeps } from './tokens.ts';
export { ROLES, ALL_TENANT_ROLES, isRole } from './roles.ts';
export type { Role } from './roles.ts';
export { principalOfPortal, principalOfToken, principalOfUser } from './principal.ts';
export type { PortalPrincipal, Principal, TokenPrincipal, UserPrincipal } from './principal.ts';
export { TOKEN_PREFIX, looksLikeToken } from './format.ts';

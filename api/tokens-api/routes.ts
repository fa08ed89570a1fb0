/**
 * The token API's routes: the role guard admits the roles the permission table
 * (shared/access/permissions.ts) gives each operation and refuses the others as the core does;
 * what a caller may mint, see and revoke beyond its role is decided by the core
 * (shared/tokens/api-tokens.ts).
 *
 * | Route | Action |
 * |---|---|
 * | `GET /api/v1/tokens` | the caller's tokens (admins: all), a page |
 * | `POST /api/v1/tokens` | mint one; its text is answered this once |
 * | `DELETE /api/v1/tokens/:externalId` | revoke one |
 */
import type { RouteTable } from '../model-framework/routing/table.ts';
import { operationRoute as route, SCOPE } from '../webhooks-api/routes.ts';

export const TOKENS_API_ROUTES: RouteTable = {
  'GET /tokens': route('tokens.index', 'tokens.read'),
  'POST /tokens': route('tokens.create', 'tokens.mint'),
  'DELETE /tokens/:externalId': route('tokens.destroy', 'tokens.revoke'),
};

export const TOKEN_PATHS = {
  tokens: `/${SCOPE}/tokens`,
  token: (id: string) => `/${SCOPE}/tokens/${encodeURIComponent(id)}`,
};

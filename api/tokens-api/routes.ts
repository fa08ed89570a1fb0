/**
 * The token API's routes: the role guard admits the roles the permission table
 * (shared/access/permissions.ts) gives each operation; what a caller may mint, see and revoke
 * beyond its role is decided by the core (shared/tokens/api-tokens.ts).
 *
 * | Route | Action |
 * |---|---|
 * | `GET /api/v1/tokens` | the caller's tokens (admins: all), a page |
 * | `POST /api/v1/tokens` | mint one; its text is answered this once |
 * | `DELETE /api/v1/tokens/:externalId` | revoke one |
 */
import { rolesFor, type Operation } from '../../shared/access/permissions.ts';
import type { RouteTable } from '../model-framework/routing/table.ts';
import { SCOPE, VERSION } from '../webhooks-api/routes.ts';

const route = (controller: string, operation: Operation) => ({
  controller,
  scope: SCOPE,
  version: VERSION,
  roles: rolesFor(operation),
});

export const TOKENS_API_ROUTES: RouteTable = {
  'GET /tokens': route('tokens.index', 'tokens.read'),
  'POST /tokens': route('tokens.create', 'tokens.mint'),
  'DELETE /tokens/:externalId': route('tokens.destroy', 'tokens.revoke'),
};

export const TOKEN_PATHS = {
  tokens: `/${SCOPE}/tokens`,
  token: (id: string) => `/${SCOPE}/tokens/${encodeURIComponent(id)}`,
};

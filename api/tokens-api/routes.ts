/**
 * The token API's routes (issue 13): any authenticated principal may reach them; what it may mint,
 * see and revoke is decided by the core (shared/tokens/api-tokens.ts).
 *
 * | Route | Action |
 * |---|---|
 * | `GET /api/v1/tokens` | the caller's tokens (admins: all), a page |
 * | `POST /api/v1/tokens` | mint one; its text is answered this once |
 * | `DELETE /api/v1/tokens/:externalId` | revoke one |
 */
import { READ_ROLES } from '../../shared/tokens/roles.ts';
import type { RouteTable } from '../routing/table.ts';
import { SCOPE, VERSION } from '../webhooks-api/routes.ts';

const route = (controller: string) => ({ controller, scope: SCOPE, version: VERSION, roles: READ_ROLES });

export const TOKENS_API_ROUTES: RouteTable = {
  'GET /tokens': route('tokens.index'),
  'POST /tokens': route('tokens.create'),
  'DELETE /tokens/:externalId': route('tokens.destroy'),
};

export const TOKEN_PATHS = {
  tokens: `/${SCOPE}/tokens`,
  token: (id: string) => `/${SCOPE}/tokens/${encodeURIComponent(id)}`,
};

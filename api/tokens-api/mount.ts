/** The token API, mounted by the server beside the webhook API (api/model-framework/routing/product-api.ts). */
import type { TokenListingDeps } from '../../shared/tokens/api-tokens.ts';
import type { ApiDefinition } from '../model-framework/routing/api.ts';
import { withProductApi } from '../model-framework/routing/product-api.ts';
import { tokensController } from './controller.ts';
import { TOKENS_API_ROUTES } from './routes.ts';

export const withTokensApi = (definition: ApiDefinition, deps: TokenListingDeps): ApiDefinition =>
  withProductApi(definition, 'token API', TOKENS_API_ROUTES, { tokens: tokensController(deps) });

/**
 * Every API of the product itself, mounted beside the application's declarations: the webhook
 * API and the token API. The web process and the offline OpenAPI description both mount them here.
 */
import type { TokenListingDeps } from '../shared/tokens/api-tokens.ts';
import type { WebhookDeps } from '../shared/webhooks/deps.ts';
import type { ApiDefinition } from './model-framework/routing/api.ts';
import { withTokensApi } from './tokens-api/mount.ts';
import { withWebhooksApi } from './webhooks-api/mount.ts';

export const withProductApis = (
  definition: ApiDefinition,
  deps: { webhooks: WebhookDeps; tokens: TokenListingDeps },
): ApiDefinition => withTokensApi(withWebhooksApi(definition, deps.webhooks), deps.tokens);

import type { AccountDeps } from '../../shared/accounts/deps.ts';
import type { Config } from '../../shared/config/index.ts';
import type { Pipeline } from '../pipeline.ts';
import { csrf } from './csrf.ts';
import { rejectRefusedCredentials } from './refused-credentials.ts';
import { authenticate } from './authenticate.ts';
import { sessionCookies } from './session-strategy.ts';
import { bearerTokens } from './token-strategy.ts';

/**
 * Mounts authentication in the `user` slot (bearer API tokens first, then the sign-in session
 * cookie, then the CSRF check of cookie-authenticated requests), and the answer to refused
 * credentials at the end of the `globalLimiter` slot. Plug it after the rate limits (api/server.ts does).
 */
export function plugAuthentication(
  pipeline: Pick<Pipeline, 'use'>,
  deps: { config: Config; accounts: AccountDeps },
): void {
  const { accounts } = deps;
  pipeline.use('user', authenticate({ strategies: [bearerTokens(accounts), sessionCookies(accounts)] }));
  pipeline.use('user', csrf({ config: deps.config }));
  // after the limiters (plugged into the same slot before this call): refused tokens are counted first
  pipeline.use('globalLimiter', rejectRefusedCredentials());
}

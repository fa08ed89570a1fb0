import type { Logger } from '../../shared/log/logger.ts';
import type { Sql } from '../../shared/db/connect.ts';
import type { Pipeline } from '../pipeline.ts';
import { rejectRefusedCredentials } from '../middleware/refused-credentials.ts';
import { authenticate } from './authenticate.ts';
import { bearerTokens } from './token-strategy.ts';

/**
 * Mounts authentication in the `user` slot (bearer API tokens today; the user-account issue adds
 * its session strategy to the list here), and the answer to refused credentials at the end of
 * the `globalLimiter` slot. Plug it after the rate limits (api/server.ts does).
 */
export function plugAuthentication(pipeline: Pick<Pipeline, 'use'>, deps: { sql: Sql; log: Logger }): void {
  pipeline.use('user', authenticate({ strategies: [bearerTokens(deps)] }));
  // after the limiters (plugged into the same slot before this call): refused tokens are counted first
  pipeline.use('globalLimiter', rejectRefusedCredentials());
}

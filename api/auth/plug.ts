import type { Logger } from '../../shared/log/logger.ts';
import type { Sql } from '../../shared/db/connect.ts';
import type { Pipeline } from '../pipeline.ts';
import { authenticate } from './authenticate.ts';
import { bearerTokens } from './token-strategy.ts';

/**
 * Mounts authentication in the `user` slot: bearer API tokens today; the user-account issue
 * adds its session strategy to the list here.
 */
export function plugAuthentication(pipeline: Pick<Pipeline, 'use'>, deps: { sql: Sql; log: Logger }): void {
  pipeline.use('user', authenticate({ strategies: [bearerTokens(deps)] }));
}

import { Logger as GraphileLogger } from 'graphile-worker';
import type { Logger } from '../log/logger.ts';

/** graphile-worker's logger interface, writing through our pino logger (and its masking). */
export function graphileLogger(log: Logger): GraphileLogger {
  const child = log.child({ component: 'graphile-worker' });
  return new GraphileLogger(() => (level, message, meta) => {
    const method = level === 'error' ? 'error' : level === 'warning' ? 'warn' : level === 'info' ? 'info' : 'debug';
    child[method](meta ?? {}, message);
  });
}

/**
 * A custom counter store (`rateLimit.store`, in place of the shared backend): a module whose
 * default export (or `createLimiter`) is a factory
 * `(app, {name, keyPrefix, points, duration}) => limiter` returning anything with
 * rate-limiter-flexible's `consume(key)` contract (resolve within the limit, reject with a
 * `RateLimiterRes` over it, reject with an Error when it fails); any `RateLimiter*` of that library
 * fits. `duration` is in seconds.
 */
import type { Config } from '../../shared/config/index.ts';
import type { Logger } from '../../shared/log/logger.ts';
import { counterFrom, windowSeconds, type ConsumingLimiter } from '../../shared/stores/counter.ts';
import { importStoreModule } from '../../shared/stores/custom-module.ts';
import type { Counter, CounterOptions } from '../../shared/stores/types.ts';

export type LimiterFactory = (
  app: { config: Config; log: Logger },
  options: { name: string; keyPrefix: string; points: number; duration: number },
) => ConsumingLimiter;

/** Loads `rateLimit.store`; returns a maker of counters. */
export async function loadCounterStore(
  app: { config: Config; log: Logger },
  specifier: string,
): Promise<(options: CounterOptions) => Counter> {
  const exported = await importStoreModule(specifier);
  const factory =
    typeof exported === 'function' ? exported : (exported as { createLimiter?: unknown } | undefined)?.createLimiter;
  if (typeof factory !== 'function')
    throw new Error(
      `the rate limit store module ${specifier} must export a factory (app, {name, keyPrefix, points, duration}) => limiter`,
    );
  return (options) => {
    const limiter = (factory as LimiterFactory)(app, {
      name: options.name,
      keyPrefix: `app:rl:${options.name}`,
      points: options.points,
      duration: windowSeconds(options.windowMs),
    });
    if (typeof limiter?.consume !== 'function')
      throw new Error(`the rate limit store ${specifier} made a limiter without consume()`);
    return counterFrom(limiter, { ...options, timeoutMs: app.config.shared.timeout });
  };
}

/**
 * Mounts the three limiters (their slots: docs/models.md, "Middleware order"): the authentication
 * limiter (10 POST per minute per ip on the account paths) and the global limiter (600 per minute
 * per user or ip; not enforced in development) in their application slots, and each route's own
 * `rateLimit` in the `routeLimiter` route slot (always enforced). Counters live in the shared
 * backend, or in the module `rateLimit.store` names.
 */
import type { Config } from '../../shared/config/index.ts';
import type { Logger } from '../../shared/log/logger.ts';
import { windowSeconds } from '../../shared/stores/counter.ts';
import { once } from '../../shared/stores/once.ts';
import type { Counter, CounterOptions, SharedStore } from '../../shared/stores/types.ts';
import type { Module } from '../lifecycle.ts';
import { rateLimit } from './middleware.ts';
import type { Pipeline } from '../pipeline.ts';
import { loadCounterStore } from './custom-store.ts';
import { routePath } from '../http/route-path.ts';

export interface GuardDeps {
  config: Config;
  log: Logger;
  shared: SharedStore;
}

/** The boot line: where the counters live (the shared backend, or this process). */
export function rateLimitLine(config: Config, where: string): string {
  if (config.rateLimit === false) return 'api rate limit off';
  const { max, windowMs } = config.rateLimit;
  const counted =
    where === 'this process' ? 'counted in this process' : `counted in ${where} (fail ${config.shared.onError})`;
  return `api rate limit ${max} requests per ${windowSeconds(windowMs)}s per user or ip, ${counted}`;
}

/** Plugs the limiters into `pipeline`; returns the module that loads a custom counter store at boot, if any. */
export function plugRateLimits(pipeline: Pick<Pipeline, 'use' | 'useRoute'>, deps: GuardDeps): Module | undefined {
  const { config, log, shared } = deps;
  const limits = config.rateLimit;
  if (config.env === 'production' && config.trustProxy) {
    log.warn(
      `trustProxy is true: client ips (rate limits, idempotency scopes) are the X-Forwarded-For entry the farthest of ${config.proxyHops} proxies appended; set it only behind such proxies`,
    );
  }
  if (limits === false) {
    log.info(rateLimitLine(config, shared.where));
    return undefined;
  }
  const custom = limits.store ? once(() => loadCounterStore({ config, log }, limits.store as string)) : undefined;
  const counters = new Map<string, Promise<Counter>>();
  /** One counter per name, made at its first use and kept (routes are built lazily). */
  const counter = (options: CounterOptions) => () => {
    let made = counters.get(options.name);
    if (!made) {
      made = custom ? custom().then((make) => make(options)) : Promise.resolve().then(() => shared.counter(options));
      counters.set(options.name, made);
    }
    return made;
  };
  const common = { onError: config.shared.onError, logFailure: shared.logFailure };

  if (limits.auth) {
    const { max, windowMs } = limits.auth;
    const paths = new Set(limits.auth.paths.map(routePath));
    pipeline.use(
      'authLimiter',
      rateLimit({
        name: 'auth',
        counter: counter({ name: 'auth', points: max, windowMs }),
        applies: (ctx) => ctx.method === 'POST' && paths.has(routePath(ctx.path)),
        keyOf: (ctx) => `ip:${ctx.ip}`,
        ...common,
      }),
    );
  }
  if (config.env !== 'development' || limits.enforceInDevelopment) {
    pipeline.use(
      'globalLimiter',
      rateLimit({
        name: 'global',
        counter: counter({ name: 'global', points: limits.max, windowMs: limits.windowMs }),
        ...common,
      }),
    );
  }
  pipeline.useRoute('routeLimiter', (route) =>
    route.rateLimit
      ? rateLimit({
          name: `route ${route.method} ${route.path}`,
          counter: counter({
            name: `route:${route.method}:${route.path}`,
            points: route.rateLimit.max,
            windowMs: route.rateLimit.windowMs,
          }),
          ...common,
        })
      : undefined,
  );

  log.info(rateLimitLine(config, limits.store ? `custom store ${limits.store}` : shared.where));
  if (config.env === 'development' && !limits.enforceInDevelopment)
    log.info('global rate limit not enforced in development (rateLimit.enforceInDevelopment)');
  return custom ? { name: 'rate-limit-store', start: async () => void (await custom()) } : undefined;
}

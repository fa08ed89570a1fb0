import type { Middleware } from 'koa';
import type { Logger } from '../../shared/log/logger.ts';
import { auditConfig } from '../../shared/security/audit.ts';
import type { Config } from '../../shared/config/index.ts';

/**
 * The audit's `trust-proxy.forwarded-ignored` finding (info), which only requests can show: the
 * first request that arrives with `X-Forwarded-For` while `trustProxy` is off is logged once per
 * process, so a deployer behind a proxy learns why every client shares the proxy's rate limit.
 * Nothing when `trustProxy` is on.
 */
export function forwardedNotice(options: { config: Config; log: Logger }): Middleware | undefined {
  if (options.config.trustProxy) return undefined;
  let noticed = false;
  return async function forwardedNotice(ctx, next) {
    if (!noticed && ctx.get('x-forwarded-for') !== '') {
      noticed = true;
      const [finding] = auditConfig(options.config, { forwardedForSeen: true }).filter(
        (found) => found.id === 'trust-proxy.forwarded-ignored',
      );
      if (finding)
        options.log.info(
          { finding: finding.id, setting: finding.setting, remedy: finding.remedy },
          `security audit: ${finding.message}`,
        );
    }
    await next();
  };
}

import { createLogger, type Logger } from '../log/logger.ts';
import { auditConfig, summaryLine } from '../security/audit.ts';
import { productionRefusal } from '../security/production-guard.ts';
import { ConfigError } from './config-error.ts';
import { resolveConfig, type ConfigSources } from './resolve.ts';
import type { Config } from './types.ts';

/**
 * What an entry point (web, worker) does first: resolve the config once and make the logger.
 * An invalid config prints every problem and exits with code 1 (the one place a process exits
 * over its configuration), and so does a production config the production guard refuses (no or
 * a short `APP_SECRET`); warnings (unknown `APP_*` variables) are logged. In production the
 * security audit's summary is logged in one line (the database facts are `app audit`'s).
 */
export function configForProcess(name: string, sources?: ConfigSources): { config: Config; log: Logger } {
  let resolved: ReturnType<typeof resolveConfig>;
  try {
    resolved = resolveConfig(sources);
  } catch (error) {
    process.stderr.write(`${error instanceof ConfigError ? error.message : String(error)}\n`);
    process.exit(1);
  }
  const { config, warnings } = resolved;
  const refusal = productionRefusal(config);
  if (refusal !== undefined) {
    process.stderr.write(`${name}: ${refusal}\n`);
    process.exit(1);
  }
  const log = createLogger(config, { name });
  for (const warning of warnings) log.warn(warning);
  if (config.env === 'production') {
    const findings = auditConfig(config);
    const high = findings.some((finding) => finding.severity === 'high');
    log[high ? 'warn' : 'info']({ findings: findings.map((finding) => finding.id) }, summaryLine(findings));
  }
  return { config, log };
}

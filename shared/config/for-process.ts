import { createLogger, type Logger } from '../log/logger.ts';
import { ConfigError, resolveConfig, type ConfigSources } from './resolve.ts';
import type { Config } from './types.ts';

/**
 * What an entry point (web, worker) does first: resolve the config once and make the logger.
 * An invalid config prints every problem and exits with code 1 (the one place a process exits
 * over its configuration); warnings (unknown `APP_*` variables) are logged.
 */
export function configForProcess(name: string, sources?: ConfigSources): { config: Config; log: Logger } {
  let resolved;
  try {
    resolved = resolveConfig(sources);
  } catch (error) {
    process.stderr.write(`${error instanceof ConfigError ? error.message : String(error)}\n`);
    process.exit(1);
  }
  const { config, warnings } = resolved;
  const log = createLogger(config, { name });
  for (const warning of warnings) log.warn(warning);
  return { config, log };
}

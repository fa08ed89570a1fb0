export { resolveConfig, leaves, type ConfigSources, type Resolved } from './resolve.ts';
export { ConfigError } from './config-error.ts';
export { maskConfig, maskUrl } from './mask.ts';
export { envName } from './env-names.ts';
export { parseDuration, parseSize, formatDuration } from './units.ts';
export type { Config } from './types.ts';
export type { Environment } from './schema.ts';

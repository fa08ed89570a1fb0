/**
 * The one naming rule from a config key to its environment variable: `APP_` + the key path in
 * upper snake case, levels joined by `__` (`webhooks.backoff.base` -> `APP_WEBHOOKS__BACKOFF__BASE`).
 */
export function envName(path: readonly string[]): string {
  return `APP_${path.map((part) => part.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()).join('__')}`;
}

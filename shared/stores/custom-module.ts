import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Imports the module a `store` key names (`api.idempotency.store`, `rateLimit.store`): a path
 * (relative to the working directory, the repo root for `npm start` and the Procfile) or a
 * package name. Returns the thing it exports: `default` when present, else the namespace.
 */
export async function importStoreModule(specifier: string, cwd = process.cwd()): Promise<unknown> {
  const target =
    specifier.startsWith('.') || isAbsolute(specifier) ? pathToFileURL(resolve(cwd, specifier)).href : specifier;
  const namespace = (await import(target)) as Record<string, unknown>;
  return namespace.default ?? namespace;
}

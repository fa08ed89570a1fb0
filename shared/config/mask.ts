import { leaves } from './resolve.ts';
import type { Config } from './types.ts';

const MASK = '[masked]';

/** A URL with its password replaced, so an operator can still see host and database. */
function maskUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.password) url.password = MASK;
    return url.toString();
  } catch {
    return MASK;
  }
}

/** A copy of the config for printing: every key marked secret is masked (URLs keep all but the password). */
export function maskConfig(config: Config): Record<string, unknown> {
  const copy = structuredClone(config) as unknown as Record<string, unknown>;
  for (const { path, leaf } of leaves()) {
    if (!leaf.secret) continue;
    let parent: Record<string, unknown> | undefined = copy;
    for (const part of path.slice(0, -1)) {
      const next: unknown = parent?.[part];
      parent = typeof next === 'object' && next !== null ? (next as Record<string, unknown>) : undefined;
    }
    const last = path[path.length - 1];
    const value = parent?.[last];
    if (parent && typeof value === 'string') parent[last] = /^[a-z]+:\/\//i.test(value) ? maskUrl(value) : MASK;
  }
  return copy;
}

import { leaves } from './resolve.ts';
import type { Config } from './types.ts';

const MASK = '[masked]';

/** Query parameters that carry a credential in some drivers' URLs (`?password=…`, `?sslkey=…`). */
const SECRET_PARAMETER = /pass|secret|token|key/i;

/**
 * A URL with its password replaced, so an operator can still see host and database; a URL with
 * nothing to mask is given back as written (not as the URL parser writes it again, with a `/` added).
 */
export function maskUrl(value: string): string {
  try {
    const url = new URL(value);
    let changed = false;
    if (url.password) {
      url.password = MASK;
      changed = true;
    }
    for (const name of [...url.searchParams.keys()]) {
      if (SECRET_PARAMETER.test(name)) {
        url.searchParams.set(name, MASK);
        changed = true;
      }
    }
    return changed ? url.toString() : value;
  } catch {
    return MASK;
  }
}

type Tree = Record<string, unknown>;
const asTree = (value: unknown): Tree | undefined =>
  typeof value === 'object' && value !== null ? (value as Tree) : undefined;

/** A secret value masked: a URL keeps all but its password, anything else is the mask. */
const masked = (value: string): string => (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? maskUrl(value) : MASK);

/** Masks `parent[key]` when it is a string, or each string of a list (`previousSecrets`). */
function maskAt(parent: Tree | undefined, key: string): void {
  const value = parent?.[key];
  if (parent && typeof value === 'string') parent[key] = masked(value);
  else if (parent && Array.isArray(value))
    parent[key] = value.map((item: unknown) => (typeof item === 'string' ? masked(item) : item));
}

/**
 * A copy of the config for printing: every key marked secret is masked (URLs keep all but the
 * password), and so is every secret field of each entry of a map (`stores.<name>.url`).
 */
export function maskConfig(config: Config): Record<string, unknown> {
  const copy = structuredClone(config) as unknown as Tree;
  for (const { path, leaf } of leaves()) {
    let parent: Tree | undefined = copy;
    for (const part of path.slice(0, -1)) parent = asTree(parent?.[part]);
    const last = path[path.length - 1];
    if (leaf.secret) maskAt(parent, last);
    const secretFields = Object.entries(leaf.entry ?? {}).filter(([, field]) => field.secret);
    if (secretFields.length === 0) continue;
    for (const entry of Object.values(asTree(parent?.[last]) ?? {})) {
      for (const [name] of secretFields) maskAt(asTree(entry), name);
    }
  }
  return copy;
}

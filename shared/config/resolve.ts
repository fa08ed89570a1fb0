import { readFileSync } from 'node:fs';
import { SCHEMA, type Environment, type Group, type Leaf, type Node } from './schema.ts';
import type { Config } from './types.ts';
import { parseDuration, parseSize } from './units.ts';
import { envName, nearestName } from './env-names.ts';
import { ConfigError } from './config-error.ts';

export interface ConfigSources {
  /** Environment variables (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Values from command-line flags, the highest layer, shaped like the config. */
  flags?: Record<string, unknown>;
  /** Reads the file named by `APP_CONFIG` (injectable for tests). */
  readFile?: (path: string) => string;
}

export interface Resolved {
  config: Config;
  /** Things worth saying at start that do not stop it (e.g. unknown `APP_*` variables). */
  warnings: string[];
}

type Tree = Record<string, unknown>;
const isPlainObject = (value: unknown): value is Tree =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const BOOLEAN_TEXT: Record<string, boolean> = { true: true, false: false, '1': true, '0': false, yes: true, no: false };

/** Turns one raw value into the leaf's type, or returns a problem text. */
function coerce(leaf: Leaf, raw: unknown, fromText: boolean): { value: unknown } | { problem: string } {
  if (raw === null || (fromText && raw === '')) {
    return leaf.nullable ? { value: null } : { problem: 'may not be empty' };
  }
  if (
    leaf.allowFalse &&
    (raw === false || (fromText && typeof raw === 'string' && raw.trim().toLowerCase() === 'false'))
  )
    return { value: false };
  let value: unknown = raw;
  switch (leaf.type) {
    case 'string':
      if (typeof raw !== 'string') return { problem: `must be a string, got ${JSON.stringify(raw)}` };
      break;
    case 'integer':
    case 'number': {
      value = fromText && typeof raw === 'string' && /^-?\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : raw;
      if (typeof value !== 'number' || !Number.isFinite(value))
        return { problem: `must be a number, got ${JSON.stringify(raw)}` };
      if (leaf.type === 'integer' && !Number.isInteger(value))
        return { problem: `must be a whole number, got ${value}` };
      if (leaf.min !== undefined && value < leaf.min) return { problem: `must be at least ${leaf.min}, got ${value}` };
      if (leaf.max !== undefined && value > leaf.max) return { problem: `must be at most ${leaf.max}, got ${value}` };
      break;
    }
    case 'boolean':
      value = fromText && typeof raw === 'string' ? BOOLEAN_TEXT[raw.trim().toLowerCase()] : raw;
      if (typeof value !== 'boolean') return { problem: `must be true or false, got ${JSON.stringify(raw)}` };
      break;
    case 'duration':
      value = parseDuration(raw);
      if (value === null)
        return {
          problem: `must be a duration such as 500ms, 10s, 6h or a number of milliseconds >= 0, got ${JSON.stringify(raw)}`,
        };
      break;
    case 'size':
      value = parseSize(raw);
      if (value === null)
        return { problem: `must be a size such as 1mb, 64kb or a number of bytes >= 0, got ${JSON.stringify(raw)}` };
      break;
    case 'enum':
      if (typeof raw !== 'string' || !leaf.values?.includes(raw)) {
        return { problem: `must be one of ${leaf.values?.join(', ')}, got ${JSON.stringify(raw)}` };
      }
      break;
    case 'string[]':
      if (fromText && typeof raw === 'string') {
        const text = raw.trim();
        try {
          value = text.startsWith('[')
            ? JSON.parse(text)
            : text
                .split(',')
                .map((s) => s.trim())
                .filter(Boolean);
        } catch {
          return { problem: 'must be a JSON array or a comma-separated list' };
        }
      }
      if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
        return { problem: `must be a list of strings, got ${JSON.stringify(raw)}` };
      }
      break;
    case 'object':
      if (fromText && typeof raw === 'string') {
        try {
          value = JSON.parse(raw);
        } catch {
          return { problem: 'must be a JSON object' };
        }
      }
      if (!isPlainObject(value)) return { problem: `must be an object, got ${JSON.stringify(raw)}` };
      break;
    case 'map':
      // a default; what a layer gives is laid by applyMap, entry by entry
      if (!isPlainObject(raw)) return { problem: `must be an object, got ${JSON.stringify(raw)}` };
      value = structuredClone(raw);
      break;
  }
  return { value };
}

const defaultOf = (leaf: Leaf, env: Environment) =>
  typeof leaf.default === 'function' ? leaf.default(env) : leaf.default;

/** The default tree for one environment, already coerced (durations in ms, sizes in bytes). */
function defaults(node: Group, env: Environment): Tree {
  const tree: Tree = {};
  for (const [key, child] of Object.entries(node.children)) {
    if (child.kind === 'group') {
      const enabled =
        child.enabled === undefined ? true : typeof child.enabled === 'function' ? child.enabled(env) : child.enabled;
      tree[key] = enabled ? defaults(child, env) : false;
    } else {
      const result = coerce(child, defaultOf(child, env), false);
      if ('problem' in result) throw new Error(`bad default for ${key}: ${result.problem}`);
      tree[key] = result.value;
    }
  }
  return tree;
}

/**
 * Lays `raw` over `target` following the schema node; records problems with the key path and
 * the layer's name. `fromText` layers (environment) hold strings to be read as the leaf's type.
 */
function apply(
  node: Group,
  target: Tree,
  raw: Tree,
  path: string,
  layer: string,
  fromText: boolean,
  env: Environment,
  problems: string[],
): void {
  for (const [key, value] of Object.entries(raw)) {
    const child = node.children[key];
    const keyPath = path ? `${path}.${key}` : key;
    if (child === undefined) {
      const rest = node.rest === undefined ? undefined : node.children[node.rest];
      if (rest?.kind === 'leaf' && rest.type === 'object' && !fromText) {
        // an undeclared key of an open group (helmet's own options): collected into its `rest` child
        const collected = isPlainObject(target[node.rest as string])
          ? { ...(target[node.rest as string] as Tree) }
          : {};
        collected[key] = value;
        target[node.rest as string] = collected;
        continue;
      }
      problems.push(`${keyPath} (${layer}): unknown key`);
      continue;
    }
    if (value === undefined) continue;
    if (child.kind === 'leaf' && child.type === 'map') {
      applyMap(child, target, key, value, keyPath, layer, fromText, problems);
      continue;
    }
    if (child.kind === 'leaf') {
      const result = coerce(child, value, fromText);
      if ('problem' in result) problems.push(`${keyPath} (${layer}): ${result.problem}`);
      else target[key] = result.value;
      continue;
    }
    applyGroup(child, target, key, value, keyPath, layer, fromText, env, problems);
  }
}

function applyGroup(
  child: Group,
  target: Tree,
  key: string,
  value: unknown,
  keyPath: string,
  layer: string,
  fromText: boolean,
  env: Environment,
  problems: string[],
): void {
  const toggle = fromText && typeof value === 'string' ? BOOLEAN_TEXT[value.trim().toLowerCase()] : value;
  if (typeof toggle === 'boolean' && child.disableable) {
    target[key] = toggle ? (isPlainObject(target[key]) ? target[key] : defaults(child, env)) : false;
    return;
  }
  if (typeof value === 'string' && child.shorthand) {
    const current = isPlainObject(target[key]) ? target[key] : defaults(child, env);
    apply(child, current, { [child.shorthand]: value }, keyPath, layer, fromText, env, problems);
    target[key] = current;
    return;
  }
  if (!isPlainObject(value)) {
    problems.push(
      `${keyPath} (${layer}): must be an object${child.disableable ? ' or false' : ''}, got ${JSON.stringify(value)}`,
    );
    return;
  }
  const current = isPlainObject(target[key]) ? target[key] : defaults(child, env);
  apply(child, current, value, keyPath, layer, fromText, env, problems);
  target[key] = current;
}

/** The names a map's entries may have: they appear in messages, logs and the health answer. */
const ENTRY_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,62}$/;

/**
 * Lays a layer's `map` (JSON text from the environment) over the lower layers' one: an entry
 * is laid over the entry of the same name field by field (a null field removes that field, a
 * null entry the whole entry), each field checked as the leaf `leaf.entry` declares.
 */
function applyMap(
  leaf: Leaf,
  target: Tree,
  key: string,
  raw: unknown,
  keyPath: string,
  layer: string,
  fromText: boolean,
  problems: string[],
): void {
  let value = raw;
  if (fromText && typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      problems.push(`${keyPath} (${layer}): must be a JSON object of named entries`);
      return;
    }
  }
  if (!isPlainObject(value)) {
    problems.push(`${keyPath} (${layer}): must be an object of named entries, got ${JSON.stringify(value)}`);
    return;
  }
  const merged: Tree = isPlainObject(target[key]) ? { ...target[key] } : {};
  for (const [name, given] of Object.entries(value)) {
    const entryPath = `${keyPath}.${name}`;
    if (!ENTRY_NAME.test(name)) {
      problems.push(
        `${entryPath} (${layer}): a name is a letter then letters, digits, _ or - (at most 63), got ${JSON.stringify(name)}`,
      );
      continue;
    }
    if (given === undefined) continue;
    if (given === null) {
      delete merged[name];
      continue;
    }
    if (!isPlainObject(given)) {
      problems.push(`${entryPath} (${layer}): must be an object, got ${JSON.stringify(given)}`);
      continue;
    }
    const entry: Tree = isPlainObject(merged[name]) ? { ...merged[name] } : {};
    for (const [field, fieldValue] of Object.entries(given)) {
      const fieldLeaf = leaf.entry?.[field];
      if (fieldLeaf === undefined) {
        problems.push(`${entryPath}.${field} (${layer}): unknown key`);
        continue;
      }
      if (fieldValue === undefined) continue;
      const result = coerce(fieldLeaf, fieldValue, false);
      if ('problem' in result) problems.push(`${entryPath}.${field} (${layer}): ${result.problem}`);
      else if (result.value === null) delete entry[field];
      else entry[field] = result.value;
    }
    merged[name] = entry;
  }
  target[key] = merged;
}

/**
 * The problems of the `check` rules of the schema's leaves, on the tree every layer made (a
 * leaf under a group turned off is not judged).
 */
function checkRules(tree: Tree): string[] {
  const problems: string[] = [];
  for (const { path, leaf } of leaves()) {
    if (!leaf.check) continue;
    let value: unknown = tree;
    for (const part of path) value = isPlainObject(value) ? value[part] : undefined;
    if (value !== undefined) problems.push(...leaf.check(value, tree));
  }
  return problems;
}

/** Collects the environment variables the schema knows into a raw tree of strings. */
function fromEnvironment(
  node: Group,
  vars: Readonly<Record<string, string | undefined>>,
  path: string[],
  seen: Set<string>,
): Tree {
  const tree: Tree = {};
  for (const [key, child] of Object.entries(node.children)) {
    const keyPath = [...path, key];
    const names = [envName(keyPath), ...(child.kind === 'leaf' ? (child.envAliases ?? []) : [])];
    for (const name of names) seen.add(name);
    const found = names.find((name) => vars[name] !== undefined);
    if (child.kind === 'group') {
      const nested = fromEnvironment(child, vars, keyPath, seen);
      if (found !== undefined && Object.keys(nested).length === 0) tree[key] = vars[found];
      else if (Object.keys(nested).length > 0) tree[key] = nested;
    } else if (found !== undefined) {
      tree[key] = vars[found];
    }
  }
  return tree;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** Variables that are ours but are not config keys. */
const NOT_KEYS = new Set(['APP_CONFIG']);

/**
 * Resolves the configuration once for a process: defaults (by environment) < the JSON file
 * named by `APP_CONFIG` < environment variables < flags. Throws ConfigError listing every
 * problem found in every layer.
 */
export function resolveConfig(sources: ConfigSources = {}): Resolved {
  const vars = sources.env ?? process.env;
  const flags = sources.flags ?? {};
  const readFile = sources.readFile ?? ((path: string) => readFileSync(path, 'utf8'));
  const problems: string[] = [];
  const warnings: string[] = [];

  let file: Tree = {};
  const filePath = vars.APP_CONFIG;
  if (filePath) {
    try {
      const parsed: unknown = JSON.parse(readFile(filePath));
      if (isPlainObject(parsed)) file = parsed;
      else problems.push(`APP_CONFIG (${filePath}): must hold a JSON object`);
    } catch (error) {
      problems.push(`APP_CONFIG (${filePath}): ${(error as Error).message}`);
    }
  }

  const seen = new Set<string>();
  const fromEnv = fromEnvironment(SCHEMA, vars, [], seen);
  for (const name of Object.keys(vars)) {
    if (name.startsWith('APP_') && !seen.has(name) && !NOT_KEYS.has(name)) {
      const meant = nearestName(
        name,
        [...seen].filter((known) => known.startsWith('APP_')),
      );
      warnings.push(
        `environment variable ${name} is not a configuration key; ignored${meant ? ` (did you mean ${meant}?)` : ''}`,
      );
    }
  }

  const envLeaf = SCHEMA.children.env as Leaf;
  const envRaw = flags.env ?? fromEnv.env ?? file.env ?? 'development';
  const envResult = coerce(envLeaf, envRaw, true);
  const env = ('value' in envResult ? envResult.value : 'development') as Environment;

  const tree = defaults(SCHEMA, env);
  apply(SCHEMA, tree, file, '', 'file', false, env, problems);
  apply(SCHEMA, tree, fromEnv, '', 'environment', true, env, problems);
  apply(SCHEMA, tree, flags, '', 'flags', false, env, problems);
  // the rules across keys judge the merged values, so only once each value has its own type right
  if (problems.length === 0) problems.push(...checkRules(tree));

  if (problems.length > 0) throw new ConfigError(problems);
  return { config: deepFreeze(tree) as unknown as Config, warnings };
}

/** Leaves of the schema with their dotted key, for docs and masking. */
export function* leaves(
  node: Group = SCHEMA,
  path: string[] = [],
): Generator<{ key: string; path: string[]; leaf: Leaf; parents: Group[] }> {
  for (const [key, child] of Object.entries(node.children)) {
    const keyPath = [...path, key];
    if (child.kind === 'leaf') yield { key: keyPath.join('.'), path: keyPath, leaf: child, parents: [] };
    else yield* leaves(child, keyPath);
  }
}

export type { Node };

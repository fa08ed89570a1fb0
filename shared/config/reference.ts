import { SCHEMA, type Environment, type Group, type Leaf } from './schema.ts';
import { envName } from './env-names.ts';
import { formatDuration } from './units.ts';

function formatDefault(leaf: Leaf, env: Environment): string {
  const value = typeof leaf.default === 'function' ? leaf.default(env) : leaf.default;
  if (value === null) return 'unset';
  if (leaf.type === 'duration' && typeof value === 'number') return formatDuration(value);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function describeDefault(leaf: Leaf): string {
  const development = formatDefault(leaf, 'development');
  const production = formatDefault(leaf, 'production');
  const test = formatDefault(leaf, 'test');
  if (development === production && development === test) return `\`${development}\``;
  return `\`${development}\` (test: \`${test}\`, production: \`${production}\`)`;
}

function* rows(node: Group, path: string[]): Generator<string> {
  for (const [key, child] of Object.entries(node.children)) {
    const keyPath = [...path, key];
    const names = [envName(keyPath), ...(child.kind === 'leaf' ? child.envAliases ?? [] : [])].map((name) => `\`${name}\``).join(', ');
    if (child.kind === 'group') {
      if (child.doc) yield `| \`${keyPath.join('.')}\` | on/off | \`${child.enabled === false ? 'false' : 'on'}\` | ${names} | ${child.doc} |`;
      yield* rows(child, keyPath);
    } else {
      const type = child.type === 'enum' ? (child.values ?? []).join(' \\| ') : child.type;
      yield `| \`${keyPath.join('.')}\` | ${type} | ${describeDefault(child)} | ${names} | ${child.doc} |`;
    }
  }
}

/** The README's configuration reference table, generated from the schema (`npm run docs:config`). */
export function configReference(): string {
  return ['| Key | Type | Default | Environment | Meaning |', '|---|---|---|---|---|', ...rows(SCHEMA, [])].join('\n');
}

export const REFERENCE_START = '<!-- config-reference:start (npm run docs:config) -->';
export const REFERENCE_END = '<!-- config-reference:end -->';

/** Replaces the reference between the README's markers. */
export function withReference(readme: string): string {
  const start = readme.indexOf(REFERENCE_START);
  const end = readme.indexOf(REFERENCE_END);
  if (start < 0 || end < start) throw new Error('README.md has no configuration reference markers');
  return `${readme.slice(0, start + REFERENCE_START.length)}\n${configReference()}\n${readme.slice(end)}`;
}

if (import.meta.main) {
  const { readFileSync, writeFileSync } = await import('node:fs');
  const path = new URL('../../README.md', import.meta.url);
  writeFileSync(path, withReference(readFileSync(path, 'utf8')));
}

/**
 * What README.md and docs/ name exists, under that name: a reader who copies an error code, a
 * variable, a file, a command and its options, a configuration key or a metric from them finds
 * it in the service, and a default they quote in passing is the default. docs/cli.md and
 * docs/configuration.md are generated and checked by their own tests (cli.test.ts,
 * configuration.test.ts), so they serve here as the reference for commands and settings; links
 * and headings are checked by readme.test.ts.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { OPERATIONS } from '../../shared/access/permissions.ts';
import { envName, parseDuration, parseSize } from '../../shared/config/index.ts';
import { type Environment, type Group, type Leaf, SCHEMA } from '../../shared/config/schema.ts';
import { registerPoolGauges } from '../../shared/metrics/pool-gauges.ts';
import { registerQueueGauges } from '../../shared/metrics/queue-gauges.ts';
import { createMetrics } from '../../shared/metrics/registry.ts';
import { ROOT } from '../helpers/processes.ts';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The documents a reader reads, fenced code blocks blanked (their lines kept, for line numbers). */
const DOCUMENTS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md') && name !== 'cli.md' && name !== 'configuration.md')
    .map((name) => `docs/${name}`),
].map((path) => ({
  path,
  lines: read(path)
    .replace(/```[\s\S]*?```/g, (block) => block.replace(/[^\n]/g, ''))
    .split('\n'),
}));

/** `[where, code span]` for every inline code span of the documents. */
const spans = DOCUMENTS.flatMap(({ path, lines }) =>
  lines.flatMap((line, index) => [...line.matchAll(/`([^`\n]+)`/g)].map((match) => [`${path}:${index + 1}`, match[1]])),
);

/** Every source file of the processes and the CLI, as text. */
const SOURCES = ['api', 'shared', 'worker', 'cli'].flatMap((dir) =>
  readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => read(join(dir, file))),
);
/** Strings the code quotes: error codes, audit finding ids and the like. */
const QUOTED = new Set(SOURCES.flatMap((text) => [...text.matchAll(/'([\w.:-]+)'/g)].map((match) => match[1])));

/** The configuration's keys (groups and leaves), each with its node. */
const KEYS = new Map<string, Group | Leaf>();
(function walk(group: Group, path: string[]) {
  for (const [key, child] of Object.entries(group.children)) {
    KEYS.set([...path, key].join('.'), child);
    if (child.kind === 'group') walk(child, [...path, key]);
  }
})(SCHEMA, []);

describe('what the documents name exists', () => {
  it('every APP_ name is an error code the code answers or a configuration variable', () => {
    const variables = new Set<string>();
    for (const [key, node] of KEYS) {
      variables.add(envName(key.split('.')));
      if (node.kind === 'leaf') for (const alias of node.envAliases ?? []) variables.add(alias);
    }
    const unknown = DOCUMENTS.flatMap(({ path, lines }) =>
      lines.flatMap((line, index) =>
        [...line.matchAll(/\bAPP_[A-Z][A-Z0-9_]*\b/g)]
          .map((match) => match[0])
          .filter((name) => !QUOTED.has(name) && !variables.has(name))
          .map((name) => `${path}:${index + 1}: ${name}`),
      ),
    );
    assert.deepEqual(unknown, []);
  });

  it('every file or folder of the repository it names is there', () => {
    /** Files docs/models.md has the reader write, and a route scope that looks like a path. */
    const NOT_FILES = new Set([
      'api/model-framework/models/post.ts',
      'api/model-framework/models/author.ts',
      'api/model-framework/controllers/status.ts',
      'api/v1',
    ]);
    const exists = (path: string) =>
      path.includes('*')
        ? readdirSync(join(ROOT, dirname(path))).some((name) =>
            new RegExp(`^${path.split('/').pop()?.replace('.', '\\.').replace('*', '.*')}$`).test(name),
          )
        : existsSync(join(ROOT, path));
    const missing = DOCUMENTS.flatMap(({ path, lines }) =>
      lines.flatMap((line, index) =>
        [
          ...line
            .replace(/\]\([^)]*\)/g, '') // links: readme.test.ts follows them
            .replace(/https?:\/\/\S+/g, '')
            .matchAll(/(?<![\w./@-])((?:api|shared|worker|cli|test|bench|migrations|deploy|docs)\/[\w./*-]*[\w*/])/g),
        ]
          .map((match) => match[1])
          .filter((named) => !NOT_FILES.has(named) && !exists(named))
          .map((named) => `${path}:${index + 1}: ${named}`),
      ),
    );
    assert.deepEqual(missing, []);
  });

  it('every app command it shows exists, with the options it gives it (docs/cli.md, generated)', () => {
    const reference = new Map<string, string>();
    let command = '';
    for (const line of read('docs/cli.md').split('\n')) {
      const heading = /^### `([\w:-]+(?: show)?)/.exec(line);
      if (heading) reference.set((command = heading[1]), '');
      else if (command) reference.set(command, `${reference.get(command)}${line}\n`);
    }
    const groups = new Set(
      [...reference.keys()].filter((name) => name.includes(':')).map((name) => name.split(':')[0]),
    );
    /** graphile-worker's notification channel, not a command. */
    const NOT_COMMANDS = new Set(['jobs:insert']);
    const wrong: string[] = [];
    for (const [where, span] of spans) {
      const line = /^(?:npx )?(app )?([a-z-]+)(?::([a-z*|-]+))?(?: (show))?((?: .*)?)$/.exec(span);
      if (!line || NOT_COMMANDS.has(span.split(' ')[0])) continue;
      const [, app, group, subs, show, rest] = line;
      if (!app && !(subs && groups.has(group))) continue; // not a command line
      const names = subs ? subs.split('|').map((sub) => `${group}:${sub}`) : [show ? `${group} show` : group];
      for (const name of names) {
        if (name.endsWith(':*')) {
          if (!groups.has(group)) wrong.push(`${where}: no command ${name}`);
          continue;
        }
        const options = reference.get(name);
        if (options === undefined) {
          wrong.push(`${where}: no command ${name}`);
          continue;
        }
        for (const [flag] of rest.matchAll(/--[a-z][a-z-]*/g)) {
          const declared = (option: string) => options.includes(`| \`${option}\``);
          if (['--help', '--json', '--version'].includes(flag) || declared(flag)) continue;
          if (flag.startsWith('--no-') && declared(`--${flag.slice(5)}`)) continue;
          wrong.push(`${where}: ${name} has no ${flag}`);
        }
      }
    }
    assert.deepEqual(wrong, []);
  });

  it('every configuration key it names is a key of the schema', () => {
    const groups = new Set([...KEYS].filter(([, node]) => node.kind === 'group').map(([key]) => key));
    const maps = [...KEYS].filter(([, node]) => node.kind === 'leaf' && node.type === 'map').map(([key]) => key);
    const NOT_KEYS = new Set(['graphql.run']); // the web process's in-process GraphQL call
    const unknown = spans
      .map(([where, span]) => [where, /^([a-z]\w*(?:\.[\w<>]+)+)(?:$|[:= ])/.exec(span)?.[1]] as const)
      .filter(([, key]) => key && groups.has(key.split('.')[0]))
      .filter(([, key]) => key && !KEYS.has(key) && !maps.some((map) => key.startsWith(`${map}.`)))
      .filter(([, key]) => key && !NOT_KEYS.has(key) && !QUOTED.has(key) && !(OPERATIONS as string[]).includes(key))
      .map(([where, key]) => `${where}: ${key}`);
    assert.deepEqual(unknown, []);
  });

  it('a default it quotes beside its key, `key` (value), is the default', () => {
    const UNITS: Record<string, string> = {
      ms: 'ms',
      s: 's',
      second: 's',
      seconds: 's',
      min: 'm',
      minute: 'm',
      minutes: 'm',
      h: 'h',
      hour: 'h',
      hours: 'h',
      d: 'd',
      day: 'd',
      days: 'd',
      kb: 'kb',
      mb: 'mb',
    };
    const ENVIRONMENTS: Environment[] = ['development', 'test', 'production'];
    const wrong: string[] = [];
    for (const { path, lines } of DOCUMENTS) {
      lines.forEach((line, index) => {
        for (const match of line.matchAll(/`([\w.]+)` \(([\d,.]+)(?: ?([a-zA-Z]+))?\b/g)) {
          const [quoted, key, number, unit = ''] = match;
          const leaf = KEYS.get(key);
          if (leaf?.kind !== 'leaf' || !['integer', 'number', 'duration', 'size'].includes(leaf.type)) continue;
          // a duration or a size is quoted with its unit; a bare number beside one is something else (a status)
          if ((leaf.type === 'duration' || leaf.type === 'size') && !UNITS[unit.toLowerCase()]) continue;
          const text = `${number.replace(/,/g, '')}${UNITS[unit.toLowerCase()] ?? ''}`;
          const value =
            leaf.type === 'duration' ? parseDuration(text) : leaf.type === 'size' ? parseSize(text) : Number(text);
          const defaults = ENVIRONMENTS.map((env) =>
            typeof leaf.default === 'function' ? leaf.default(env) : leaf.default,
          );
          const parsed = defaults.map((value) =>
            leaf.type === 'duration' ? parseDuration(value) : leaf.type === 'size' ? parseSize(value) : value,
          );
          if (!parsed.includes(value)) wrong.push(`${path}:${index + 1}: ${quoted}…; the default is ${defaults[0]}`);
        }
      });
    }
    assert.deepEqual(wrong, []);
  });
});

describe('docs/operations.md metrics', () => {
  it('lists every metric the processes export, with its labels, and no other', () => {
    const metrics = createMetrics({ process: 'web' });
    registerQueueGauges(metrics.registry, {
      sql: undefined as never, // never read: the gauges are only registered here, not collected
      log: undefined as never,
      staleAfterMs: 0,
    });
    registerPoolGauges(metrics.registry, { max: 1, open: 0 }, { sql: undefined as never });
    const exported = new Map(
      metrics.registry
        .getMetricsAsArray()
        .filter((metric) => metric.name.startsWith('app_'))
        .map((metric) => [metric.name, [...((metric as { labelNames?: string[] }).labelNames ?? [])].sort()]),
    );
    const table = new Map(
      [...read('docs/operations.md').matchAll(/^\| `(app_\w+)` \|[^|]*\|([^|]*)\|/gm)].map((row) => [
        row[1],
        [...row[2].replace(/\([^)]*\)/g, '').matchAll(/`(\w+)`/g)].map((label) => label[1]).sort(),
      ]),
    );
    assert.ok(exported.size >= 12, 'the registry holds the service metrics');
    assert.deepEqual(Object.fromEntries(table), Object.fromEntries(exported));
  });
});

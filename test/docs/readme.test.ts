/**
 * README.md is the front door: short, with a table of contents whose every entry is a section,
 * the two commands a newcomer needs, and links into docs/. The facts it used to hold moved to
 * docs/ and are checked there: the error codes in docs/http-api.md, the permission table in
 * docs/accounts-and-console.md, the request pipeline in docs/architecture.md (the configuration
 * and CLI references have tests of their own). Every relative link of the documents reaches a
 * file, and a heading of it where the link names one.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { APP_SLOTS, ROUTE_SLOTS } from '../../api/pipeline.ts';
import { GRANTS, OPERATION_TEXT, OPERATIONS, PERMISSIONS, type Operation } from '../../shared/access/permissions.ts';
import { ROOT } from '../helpers/processes.ts';

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const readme = read('README.md');

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\w\s-]/g, '')
    .replace(/\s/g, '-');

/** The anchors of a markdown text's headings (outside code blocks), with GitHub's -1, -2 for repeats. */
function anchors(text: string): Set<string> {
  const found = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const base = anchor(heading[1]);
    let name = base;
    for (let n = 1; found.has(name); n += 1) name = `${base}-${n}`;
    found.add(name);
  }
  return found;
}

describe('README', () => {
  it('stays a front door: under 400 lines', () => {
    assert.ok(readme.split('\n').length < 400, `README.md has ${readme.split('\n').length} lines`);
  });

  it('shows the two commands a newcomer needs', () => {
    assert.match(readme, /npm install && npm start/);
    assert.match(readme, /npm test/);
  });

  it('has a table of contents whose every entry is a section of it', () => {
    const contents = /## Contents\n\n((?:- \[.*\n)+)/.exec(readme);
    assert.ok(contents, 'README.md has a Contents list');
    const sections = anchors(readme);
    const entries = [...contents[1].matchAll(/\]\(#([^)]+)\)/g)].map((match) => match[1]);
    assert.ok(entries.length >= 8);
    for (const entry of entries) assert.ok(sections.has(entry), `no section for #${entry}`);
    for (const entry of [
      'quick-start',
      'configuration-essentials',
      'the-command-line',
      'the-http-api',
      'error-codes',
      'deployment',
    ]) {
      assert.ok(entries.includes(entry), `the contents lack #${entry}`);
    }
  });

  it('links the configuration, CLI and API references', () => {
    for (const page of [
      'docs/configuration.md',
      'docs/cli.md',
      'docs/http-api.md',
      'docs/graphql.md',
      'docs/receiving.md',
      'docs/reliability.md',
      'docs/operations.md',
      'docs/architecture.md',
      'docs/accounts-and-console.md',
    ]) {
      assert.ok(readme.includes(`](${page}`), `README.md does not link ${page}`);
    }
  });
});

describe('documents link what exists', () => {
  it('every relative link of README, BENCHMARKS, CHANGELOG and docs/ reaches a file and its heading', async () => {
    const files = [
      'README.md',
      'BENCHMARKS.md',
      'CHANGELOG.md',
      ...(await readdir(join(ROOT, 'docs'))).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`),
    ];
    const broken: string[] = [];
    for (const file of files) {
      const text = await readFile(join(ROOT, file), 'utf8');
      const unfenced = text.replace(/```[\s\S]*?```/g, '');
      for (const [, target] of unfenced.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target)) continue; // a web address
        const [path, hash] = target.split('#');
        const resolved = path ? relative(ROOT, join(ROOT, dirname(file), path)) : file;
        if (!existsSync(join(ROOT, resolved))) {
          broken.push(`${file}: ${target} (no file ${resolved})`);
          continue;
        }
        if (hash && resolved.endsWith('.md') && !anchors(read(resolved)).has(hash))
          broken.push(`${file}: ${target} (no heading #${hash} in ${resolved})`);
      }
    }
    assert.deepEqual(broken, []);
  });
});

describe('docs/http-api.md error codes', () => {
  const page = read('docs/http-api.md');
  /** Codes that only name a programming error inside the service; never answered to a client. */
  const INTERNAL = new Set([
    'APP_WEBHOOK_BACKOFF_INVALID',
    'APP_WEBHOOK_RANGE_INVALID',
    'APP_WEBHOOK_OUTCOME_UNKNOWN',
    'APP_WEBHOOK_DELIVERY_TIMEOUT',
  ]);

  it('lists every APP_ error code the service can answer', async () => {
    const codes = new Set<string>();
    for (const dir of ['api', 'shared', 'worker', 'cli']) {
      for (const file of await readdir(join(ROOT, dir), { recursive: true })) {
        if (!file.endsWith('.ts')) continue;
        const text = await readFile(join(ROOT, dir, file), 'utf8');
        for (const match of text.matchAll(/['"](APP_[A-Z][A-Z0-9_]+)['"]/g)) codes.add(match[1]);
      }
    }
    // environment variables, not error codes
    for (const code of codes) if (code.includes('__')) codes.delete(code);
    codes.delete('APP_CONFIG');
    codes.delete('APP_DATABASE_URL');
    assert.ok(codes.size > 40);
    const missing = [...codes].filter((code) => !INTERNAL.has(code) && !page.includes(`\`${code}\``));
    assert.deepEqual(missing, []);
  });
});

describe('docs/accounts-and-console.md permission table', () => {
  it('shows the permission table every face and the core decide by (shared/access/permissions.ts)', () => {
    const page = read('docs/accounts-and-console.md');
    const mark = (operation: Operation, grant: string) =>
      (PERMISSIONS[operation] as readonly string[]).includes(grant) ? 'yes' : '-';
    const table = [
      `| Operation | What it is | ${GRANTS.join(' | ')} |`,
      `|---|---|${GRANTS.map(() => '---').join('|')}|`,
      ...OPERATIONS.map(
        (operation) =>
          `| \`${operation}\` | ${OPERATION_TEXT[operation]} | ${GRANTS.map((grant) => mark(operation, grant)).join(' | ')} |`,
      ),
    ].join('\n');
    assert.ok(page.includes(table), `the "Who may do what" section should hold this table:\n${table}`);
  });
});

describe('docs/architecture.md', () => {
  const page = read('docs/architecture.md');
  /** The first cell of each row of the table that follows `heading` (its header row and rule left out). */
  const column = (heading: string) => {
    const start = page.indexOf(`| ${heading} |`);
    assert.ok(start >= 0, `docs/architecture.md has a "${heading}" table`);
    const rows = page.slice(start).split('\n').slice(2);
    return rows
      .slice(
        0,
        rows.findIndex((row) => !row.startsWith('|')),
      )
      .map((row) => /^\| `(\w+)`/.exec(row)?.[1]);
  };

  it('shows the request pipeline in the order api/pipeline.ts mounts it', () => {
    assert.deepEqual(column('Slot'), [...APP_SLOTS]);
    assert.deepEqual(column('Route slot'), [...ROUTE_SLOTS]);
  });

  it('draws the delivery state machine with every status of a delivery', () => {
    const diagram = /```mermaid\n(stateDiagram-v2\n[\s\S]*?)```/.exec(page);
    assert.ok(diagram, 'a Mermaid stateDiagram-v2');
    for (const status of ['pending', 'running', 'done', 'dead'])
      assert.match(diagram[1], new RegExp(`\\b${status}\\b`));
  });
});

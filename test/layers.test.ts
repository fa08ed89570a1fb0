/**
 * Layers point down only: `shared/` is the core every process uses and imports
 * nothing above it; `api/` (web) and `worker/` do not import each other or the CLI; `cli/`
 * composes them all. Inside the web layer each feature keeps to its folder: the generic request
 * pipeline (`api/middleware/`) imports no feature, and the console is reached only through its
 * entry points. Import specifiers are resolved against the importing file, so a path that climbs
 * out and back in is caught too.
 */
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { COMMANDS } from '../cli/commands/index.ts';
import { ROOT } from './helpers/processes.ts';

/** Folder -> the top-level folders its files may not import. */
const FORBIDDEN: Record<string, readonly string[]> = {
  shared: ['api', 'worker', 'cli', 'deploy', 'bench', 'test'],
  api: ['worker', 'cli', 'deploy', 'bench', 'test'],
  worker: ['api', 'cli', 'deploy', 'bench', 'test'],
  cli: ['deploy', 'bench', 'test'],
};

/** The source folders (tests may reach into what they test). */
const SOURCES = ['api', 'worker', 'shared', 'cli', 'bench', 'deploy'];

/**
 * What the generic request pipeline may import: the core, its own folder, the HTTP, HAL and
 * security helpers, the route declarations its per-route guards read, and the web layer's shared
 * types. A feature (sign-in, limits, idempotency, health, the console, the APIs) plugs its own
 * middleware into the pipeline from its folder instead.
 */
const MIDDLEWARE_MAY_IMPORT = [
  'shared/',
  'api/middleware/',
  'api/http/',
  'api/hal/',
  'api/security/',
  'api/model-framework/routing/',
  'api/context.ts',
  'api/problem.ts',
];

/**
 * The console's entry points: its plug (mounted by the server) and its page machinery, which the
 * account pages and the application's controllers (`ctx.render`, `ctx.negotiate`) share. Its
 * routes, queries, forms, templates and assets are its own.
 */
const CONSOLE_ENTRY_POINTS = ['api/console/plug.ts', 'api/console/pages/'];

/**
 * Every relative module specifier of a source text (static imports, re-exports, dynamic imports)
 * and every relative path read at run time (`new URL('…', import.meta.url)`).
 */
function specifiers(text: string): string[] {
  const found = [
    ...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+|\bnew URL\(\s*)['"](\.{1,2}\/[^'"]*)['"]/gm),
  ].map((match) => match[1]);
  return [...new Set(found)];
}

/** Each `.ts` file under `folder` (repository-relative) with the repository-relative paths it imports. */
async function imports(folder: string): Promise<Array<{ file: string; specifier: string; target: string }>> {
  const found: Array<{ file: string; specifier: string; target: string }> = [];
  for (const name of await readdir(join(ROOT, folder), { recursive: true })) {
    if (!name.endsWith('.ts')) continue;
    const path = join(ROOT, folder, name);
    for (const specifier of specifiers(await readFile(path, 'utf8'))) {
      const target = relative(ROOT, resolve(dirname(path), specifier)) + (specifier.endsWith('/') ? '/' : '');
      found.push({ file: `${folder}/${name}`, specifier, target });
    }
  }
  return found;
}

async function violations(folder: string): Promise<string[]> {
  return (await imports(folder))
    .filter(({ target }) => FORBIDDEN[folder].includes(target.split('/')[0]))
    .map(({ file, specifier }) => `${file} imports ${specifier}`);
}

const within = (target: string, prefixes: readonly string[]) =>
  prefixes.some((prefix) => target === prefix || (prefix.endsWith('/') && target.startsWith(prefix)));

describe('layers point down only', () => {
  for (const folder of Object.keys(FORBIDDEN)) {
    it(`nothing under ${folder}/ imports ${FORBIDDEN[folder].join(', ')}`, async () => {
      assert.deepEqual(await violations(folder), []);
    });
  }

  it('api/middleware/ holds the generic pipeline: it imports no feature folder', async () => {
    const found = (await imports('api/middleware'))
      .filter(({ target }) => !within(target, MIDDLEWARE_MAY_IMPORT))
      .map(({ file, specifier }) => `${file} imports ${specifier}`);
    assert.deepEqual(found, []);
  });

  it("nothing outside api/console/ reaches the console's internals", async () => {
    const found: string[] = [];
    for (const folder of SOURCES) {
      for (const { file, specifier, target } of await imports(folder)) {
        if (file.startsWith('api/console/') || !target.startsWith('api/console/')) continue;
        if (!within(target, CONSOLE_ENTRY_POINTS)) found.push(`${file} imports ${specifier}`);
      }
    }
    assert.deepEqual(found, []);
  });

  it('cli/commands/ holds commands only: every module there but the table is a command it loads', async () => {
    const loaded = COMMANDS.map((entry) => entry.load.toString().match(/import\('\.\/([^']+)'\)/)?.[1]);
    const modules = (await readdir(join(ROOT, 'cli/commands'))).filter((name) => name !== 'index.ts');
    assert.deepEqual(
      modules.filter((name) => !loaded.includes(name)),
      [],
    );
  });

  it('the import scanner sees static, re-exported and dynamic imports and paths read at run time', () => {
    const text =
      "import a from './a.ts';\nexport { b } from '../b.ts';\nconst c = await import('../../c.ts');\nimport './d.ts';\nconst e = new URL('../e/', import.meta.url);";
    assert.deepEqual(specifiers(text), ['./a.ts', '../b.ts', '../../c.ts', './d.ts', '../e/']);
  });
});

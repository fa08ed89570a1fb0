/**
 * Layers point down only: `shared/` is the core every process uses and imports
 * nothing above it; `api/` (web) and `worker/` do not import each other or the CLI; `cli/`
 * composes them all. Import specifiers are resolved against the importing file, so a path that
 * climbs out and back in is caught too.
 */
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from './helpers/processes.ts';

/** Folder -> the top-level folders its files may not import. */
const FORBIDDEN: Record<string, readonly string[]> = {
  shared: ['api', 'worker', 'cli', 'deploy', 'bench', 'test'],
  api: ['worker', 'cli', 'deploy', 'bench', 'test'],
  worker: ['api', 'cli', 'deploy', 'bench', 'test'],
  cli: ['deploy', 'bench', 'test'],
};

/** Every relative module specifier of a source text (static imports, re-exports, dynamic imports). */
function specifiers(text: string): string[] {
  const found = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm)].map((match) => match[1]);
  return [...new Set(found)];
}

async function violations(folder: string): Promise<string[]> {
  const found: string[] = [];
  for (const file of await readdir(join(ROOT, folder), { recursive: true })) {
    if (!file.endsWith('.ts')) continue;
    const path = join(ROOT, folder, file);
    for (const specifier of specifiers(await readFile(path, 'utf8'))) {
      const target = relative(ROOT, resolve(dirname(path), specifier)).split('/')[0];
      if (FORBIDDEN[folder].includes(target)) found.push(`${folder}/${file} imports ${specifier}`);
    }
  }
  return found;
}

describe('layers point down only', () => {
  for (const folder of Object.keys(FORBIDDEN)) {
    it(`nothing under ${folder}/ imports ${FORBIDDEN[folder].join(', ')}`, async () => {
      assert.deepEqual(await violations(folder), []);
    });
  }

  it('the import scanner sees static, re-exported and dynamic imports', () => {
    const text = "import a from './a.ts';\nexport { b } from '../b.ts';\nconst c = await import('../../c.ts');\nimport './d.ts';";
    assert.deepEqual(specifiers(text), ['./a.ts', '../b.ts', '../../c.ts', './d.ts']);
  });
});

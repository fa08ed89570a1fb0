import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runAppInProcess } from '../../helpers/cli.ts';

/** Runs `app openapi …` (in this process) with no database configured; stdout apart from stderr. */
async function runOpenapi(args: string[]) {
  const run = await runAppInProcess(['openapi', ...args], {
    ...process.env,
    DATABASE_URL: '',
    APP_DATABASE_URL: '',
    NODE_ENV: 'production',
  });
  return { code: run.code, stdout: run.stdout, output: `${run.stdout}${run.stderr}` };
}

describe('app openapi', () => {
  it('exits 0 and prints one JSON document whose openapi is 3.1.0, without a database', async () => {
    const run = await runOpenapi([]);
    assert.equal(run.code, 0, run.output);
    const document = JSON.parse(run.stdout) as { openapi: string; paths: Record<string, unknown> };
    assert.equal(document.openapi, '3.1.0');
    assert.ok(document.paths['/api/v1/webhooks']);
    assert.ok(document.paths['/readyz']);
  });

  it('writes the document to --out and prints the path', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'app-openapi-'));
    try {
      const file = join(dir, 'openapi.json');
      const run = await runOpenapi(['--out', file]);
      assert.equal(run.code, 0, run.output);
      assert.equal(run.stdout.trim(), file);
      const document = JSON.parse(await readFile(file, 'utf8')) as { openapi: string };
      assert.equal(document.openapi, '3.1.0');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a blank --out is a usage error (exit 2) rather than printing on stdout; a file it cannot write is one line naming it (exit 1)', async () => {
    const blank = await runOpenapi(['--out', '']);
    assert.equal(blank.code, 2, blank.output);
    assert.equal(blank.stdout, '');
    assert.match(blank.output, /^app: --out needs the path of the file to write \(leave it out to print on stdout\)$/m);
    const dir = await mkdtemp(join(tmpdir(), 'app-openapi-'));
    try {
      const file = join(dir, 'missing', 'openapi.json');
      const run = await runOpenapi(['--out', file]);
      assert.equal(run.code, 1, run.output);
      const lines = run.output.split('\n').filter((line) => line.startsWith('app: '));
      assert.deepEqual(lines, [`app: cannot write ${file}: no such directory`]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

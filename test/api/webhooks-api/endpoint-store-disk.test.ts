/**
 * The endpoint table in a directory (`adapter: disk`), end to end from outside
 * (endpoint-store-scenario.ts): a fresh temporary directory, removed at the end. What is at rest
 * is every file under it, whatever its name.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { describeStoreEndToEnd } from './endpoint-store-scenario.ts';

const directory = await mkdtemp(join(tmpdir(), 'app-endpoint-store-'));
after(() => rm(directory, { recursive: true, force: true }));

/** The content of every file under `directory`, each preceded by its path. */
async function everyFile(): Promise<string> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  const texts: string[] = [];
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    texts.push(`${path}\n${await readFile(path, 'utf8')}`);
  }
  if (texts.length === 0) throw new Error(`no file under ${directory}`);
  return texts.join('\n');
}

describeStoreEndToEnd('disk', async () => ({
  options: { adapter: 'disk', path: directory },
  atRest: everyFile,
}));

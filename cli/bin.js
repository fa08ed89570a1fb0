#!/usr/bin/env node
/**
 * The `app` command (package.json `bin`): checks the Node.js version, turns on Node's compile
 * cache, then runs cli/main.ts.
 *
 * Plain JavaScript on purpose. Node strips a TypeScript file's types before running it, and the
 * file Node is started with is read before any code could turn the cache on: as a .ts file this
 * entry would start Node's TypeScript parser at every run, about 30 ms, a quarter of
 * `app --help`. From here on every module, the .ts ones included, is parsed and type-stripped
 * once per version and read from the cache afterwards. For the same reason an older Node can
 * read this file, and is told in one line what to run instead (exit 1, `APP_CLI_FAILED`).
 */
import * as nodeModule from 'node:module';
import { jsonRequested } from './json-option.js';
import { nodeVersionProblem } from './node-version.js';

const problem = nodeVersionProblem(process.version);
if (problem !== null) {
  if (jsonRequested(process.argv.slice(2)))
    process.stdout.write(`${JSON.stringify({ error: { code: 'APP_CLI_FAILED', message: problem } })}\n`);
  else process.stderr.write(`app: ${problem}\n`);
  process.exit(1);
}

nodeModule.enableCompileCache?.();

await import('./main.ts');

#!/usr/bin/env node
/**
 * The `app` command (package.json `bin`): turns on Node's compile cache, then runs cli/main.ts.
 *
 * Plain JavaScript on purpose. Node strips a TypeScript file's types before running it, and the
 * file Node is started with is read before any code could turn the cache on: as a .ts file this
 * entry would start Node's TypeScript parser at every run, about 30 ms, a quarter of
 * `app --help`. From here on every module, the .ts ones included, is parsed and type-stripped
 * once per version and read from the cache afterwards.
 */
import { enableCompileCache } from 'node:module';

enableCompileCache?.();

await import('./main.ts');

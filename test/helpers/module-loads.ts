/**
 * Preloaded into a child process (`node --import ./test/helpers/module-loads.ts …`): records
 * every module the process loads, ES modules, CommonJS files and Node's built-ins alike, and
 * writes their URLs, one a line, to the file named by MODULE_LOADS_FILE when the process exits.
 * A test can so say what a command line did not load, without timing anything.
 */
import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const file = process.env.MODULE_LOADS_FILE;
if (!file) throw new Error('MODULE_LOADS_FILE names no file to write the loaded modules to');

const loaded: string[] = [];
registerHooks({
  load(url, context, nextLoad) {
    loaded.push(url);
    return nextLoad(url, context);
  },
});
process.on('exit', () => writeFileSync(file, `${loaded.join('\n')}\n`));

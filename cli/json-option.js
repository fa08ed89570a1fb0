/**
 * Whether a command line asks for `--json`, read as yargs reads it, for the failures said before
 * or without yargs' reading (a usage error, an older Node: bin.js): the last of `--json`,
 * `--json=true`, `--no-json` and `--json=false` before `--` decides, so a failure is said the
 * way the command's success would have been. Plain JavaScript, as bin.js is.
 */
export function jsonRequested(argv) {
  let json = false;
  for (const word of argv) {
    if (word === '--') break;
    if (word === '--json' || word === '--json=true') json = true;
    else if (word === '--no-json' || word === '--json=false') json = false;
  }
  return json;
}

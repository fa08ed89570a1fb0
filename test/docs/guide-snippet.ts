/**
 * A snippet of docs/receiving.md run as the guide prints it, for the broker sections' tests: the
 * code block after `<!-- snippet:<name> -->`, run by Node from the project's root (so its
 * imports resolve to this project's packages), its output kept, killed when the file ends.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after } from 'node:test';
import { ROOT } from '../helpers/processes.ts';

const guide = readFileSync(`${ROOT}docs/receiving.md`, 'utf8');
const running: Array<() => void> = [];
after(() => {
  for (const kill of running.splice(0)) kill();
});

/** The code block that follows `<!-- snippet:<name> -->` in the guide. */
export function guideSnippet(name: string): string {
  const match = new RegExp(`<!-- snippet:${name} -->\\s*\`\`\`\\w+\\n([\\s\\S]*?)\\n\`\`\``).exec(guide);
  assert.ok(match, `the guide has a ${name} snippet`);
  return match[1];
}

/**
 * Runs snippet `name` with `env` added; `output()` is its stdout and stderr so far, `stop()` kills
 * it (a consumer that goes away) and resolves once it has exited.
 */
export function runSnippet(
  name: string,
  env: Record<string, string>,
): { output: () => string; printed: () => unknown[]; stop: () => Promise<void> } {
  const child = spawn(process.execPath, ['--input-type=module', '-e', guideSnippet(name)], {
    cwd: ROOT,
    env: { ...process.env, ...env },
  });
  running.push(() => child.kill('SIGKILL'));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return {
    output: () => output,
    /** The JSON lines it printed (the events it handled), in order. */
    printed: () =>
      output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as unknown),
    stop: () => {
      child.kill('SIGKILL');
      return exited;
    },
  };
}

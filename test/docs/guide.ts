/** docs/receiving.md as its tests read it: the code block after each `<!-- snippet:<name> -->`. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ROOT } from '../helpers/processes.ts';

const guide = readFileSync(`${ROOT}docs/receiving.md`, 'utf8');

/** The code block that follows `<!-- snippet:<name> -->` in the guide. */
export function snippet(name: string): string {
  const match = new RegExp(`<!-- snippet:${name} -->\\s*\`\`\`\\w+\\n([\\s\\S]*?)\\n\`\`\``).exec(guide);
  assert.ok(match, `the guide has a ${name} snippet`);
  return match[1];
}

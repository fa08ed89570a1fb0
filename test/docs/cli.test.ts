/**
 * docs/cli.md is generated from the CLI's command table and each command's yargs options
 * (cli/reference.ts): the committed page must be exactly what `npm run docs:cli` writes, so a
 * command or option added without regenerating the page fails here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { cliPage } from '../../cli/reference.ts';
import { COMMANDS } from '../../cli/commands/index.ts';

const page = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');

describe('docs/cli.md', () => {
  it('is the page generated from the command definitions (run npm run docs:cli)', async () => {
    assert.equal(page, await cliPage());
  });

  it('has a section for every command, with its options', async () => {
    for (const entry of COMMANDS)
      assert.ok(page.includes(`### \`${entry.command}\``), `docs/cli.md lacks ${entry.command}`);
    // options a command declares reach the page (a recorder that lost them would print none)
    for (const option of [
      '--events',
      '--rate-limit',
      '--fifo',
      '--signing',
      '--password-stdin',
      '--forward-to',
      '--from-secret-env',
    ]) {
      assert.ok(page.includes(`\`${option}\``), `docs/cli.md lacks ${option}`);
    }
    assert.match(page, /### `jobs show <id>`/);
  });
});

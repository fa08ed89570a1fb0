import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { NODE_MAJOR, nodeVersionProblem } from '../../cli/node-version.js';
import { ROOT } from '../helpers/processes.ts';

/** The machine's own `node` when it is older than the project's (the system one beside the project's), else null. */
function olderNode(): { path: string; version: string } | null {
  for (const path of ['/usr/bin/node', '/usr/local/bin/node']) {
    try {
      const version = execFileSync(path, ['--version'], { encoding: 'utf8' }).trim();
      if (nodeVersionProblem(version) !== null) return { path, version };
    } catch {
      // not there
    }
  }
  return null;
}

describe('the Node.js version the app command needs', () => {
  it('refuses a Node older than the project installs, and names what to run instead', () => {
    for (const version of ['v20.20.2', 'v22.11.0', 'v18.0.0']) {
      const problem = nodeVersionProblem(version);
      assert.match(problem ?? '', new RegExp(`needs Node\\.js ${NODE_MAJOR} or later, and this is ${version}`));
      assert.match(problem ?? '', /npx app/);
    }
    assert.equal(nodeVersionProblem(process.version), null, 'the Node running the tests is one it accepts');
    assert.equal(nodeVersionProblem(`v${NODE_MAJOR}.0.0`), null);
    assert.equal(nodeVersionProblem('v100.1.2'), null);
    assert.notEqual(nodeVersionProblem('nonsense'), null);
  });

  const older = olderNode();
  it('an older node runs bin.js to one line and exit 1, or with --json to the JSON failure', {
    skip:
      older === null ? 'this machine has no Node older than the project needs at /usr/bin or /usr/local/bin' : false,
  }, () => {
    const { path, version } = older as { path: string; version: string };
    const bin = join(ROOT, 'cli/bin.js');
    const text = spawnSync(path, [bin, 'webhooks:list'], { encoding: 'utf8' });
    assert.equal(text.status, 1);
    assert.equal(text.stdout, '');
    assert.equal(text.stderr, `app: ${nodeVersionProblem(version)}\n`);
    const json = spawnSync(path, [bin, 'webhooks:list', '--json'], { encoding: 'utf8' });
    assert.equal(json.status, 1);
    assert.deepEqual(JSON.parse(json.stdout), {
      error: { code: 'APP_CLI_FAILED', message: nodeVersionProblem(version) },
    });
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runAppInProcess } from '../helpers/cli.ts';

/** `app <args>` in this process with this process's environment and `env` over it; stdout and stderr together. */
async function app(env: Record<string, string>, args: string[]) {
  const run = await runAppInProcess(args, { ...process.env, ...env });
  return { code: run.code, output: `${run.stdout}${run.stderr}`, stdout: run.stdout };
}

describe('app config', () => {
  it('prints the effective config as one JSON document with secrets masked', async () => {
    const run = await app(
      {
        DATABASE_URL: 'postgres://app:hunter2@db.example:5432/app',
        APP_SECRET: 'very-secret-value',
        APP_WEBHOOKS__TIMEOUT: '5s',
        NODE_ENV: 'production',
      },
      ['config', '--json'],
    );
    assert.equal(run.code, 0);
    const printed = JSON.parse(run.output) as {
      secret: string;
      databaseUrl: string;
      webhooks: { timeout: number };
      env: string;
    };
    assert.equal(printed.secret, '[masked]');
    assert.doesNotMatch(run.output, /hunter2|very-secret-value/);
    assert.match(printed.databaseUrl, /db\.example:5432/);
    assert.equal(printed.webhooks.timeout, 5000);
    assert.equal(printed.env, 'production');
  });

  it('exits 1 and lists every problem of an invalid config', async () => {
    const run = await app({ PORT: 'x', APP_API__MAX_PER_PAGE: '0' }, ['config']);
    assert.equal(run.code, 1);
    assert.match(run.output, /port \(environment\)/);
    assert.match(run.output, /api\.maxPerPage \(environment\)/);
  });

  it("exits 2 (usage) with the command's usage and a one-line reason for an unknown option", async () => {
    const run = await app({}, ['config', '--bogus']);
    assert.equal(run.code, 2);
    const lines = run.output.trim().split('\n');
    assert.match(lines[0], /^app config$/, 'the usage of the command comes first');
    assert.deepEqual(
      lines.filter((line) => line.startsWith('app: ')),
      ['app: Unknown argument: bogus'],
    );
  });
});

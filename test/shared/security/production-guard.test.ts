import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveConfig } from '../../../shared/config/index.ts';
import { MIN_SECRET_LENGTH, productionRefusal } from '../../../shared/security/production-guard.ts';
import { createTestDatabase } from '../../helpers/database.ts';
import { spawnNode } from '../../helpers/processes.ts';

const config = (env: Record<string, string>) =>
  resolveConfig({ env: { DATABASE_URL: 'postgres://db.example/app', ...env } }).config;
const LONG = 'x'.repeat(MIN_SECRET_LENGTH);
/** The environment of a spawned process: nothing inherited that could set a secret or a database. */
const clean = {
  APP_SECRET: undefined,
  DATABASE_URL: undefined,
  APP_DATABASE_URL: undefined,
  APP_ALLOW_UNENCRYPTED_SECRETS: undefined,
};

describe('production guard', () => {
  it('refuses production without a secret or with one under 32 characters, and names the remedy', () => {
    assert.match(
      productionRefusal(config({ NODE_ENV: 'production' })) ?? '',
      /without APP_SECRET.*at least 32 characters.*APP_ALLOW_UNENCRYPTED_SECRETS=true/,
    );
    assert.match(
      productionRefusal(config({ NODE_ENV: 'production', APP_SECRET: LONG.slice(1) })) ?? '',
      /has 31 characters, at least 32/,
    );
    assert.equal(productionRefusal(config({ NODE_ENV: 'production', APP_SECRET: LONG })), undefined);
  });

  it('lets production store secrets unencrypted only when the deployer opts in, and never with a short secret', () => {
    assert.equal(
      productionRefusal(config({ NODE_ENV: 'production', APP_ALLOW_UNENCRYPTED_SECRETS: 'true' })),
      undefined,
    );
    assert.ok(
      productionRefusal(config({ NODE_ENV: 'production', APP_ALLOW_UNENCRYPTED_SECRETS: 'true', APP_SECRET: 'short' })),
    );
  });

  it('refuses production without DATABASE_URL, naming it (development and test bring their own database)', () => {
    const none = resolveConfig({ env: { NODE_ENV: 'production', APP_SECRET: LONG } }).config;
    assert.match(productionRefusal(none) ?? '', /^refusing to start in production without DATABASE_URL: set it to/);
    assert.equal(productionRefusal(resolveConfig({ env: { NODE_ENV: 'development' } }).config), undefined);
  });

  it('keeps development and test free of the rule', () => {
    for (const env of ['development', 'test']) assert.equal(productionRefusal(config({ NODE_ENV: env })), undefined);
  });

  for (const [name, script, args] of [
    ['web', 'api/main.ts', []],
    ['worker', 'worker/main.ts', []],
    ['release', 'cli/main.ts', ['migrate']],
  ] as const) {
    it(`the ${name} process refuses to start in production without APP_SECRET: one line, exit 1`, async () => {
      const child = spawnNode(
        script,
        { ...clean, NODE_ENV: 'production', DATABASE_URL: 'postgres://127.0.0.1:1/none' },
        [...args],
      );
      const exit = await child.exited;
      assert.equal(exit.code, 1, child.output());
      const lines = child.output().trim().split('\n');
      assert.equal(lines.length, 1, child.output());
      assert.match(lines[0], /refusing to start in production without APP_SECRET/);
    });
  }

  it('a production web process that opted into unencrypted secrets starts, and logs the audit summary with the high finding in one line', async () => {
    const db = await createTestDatabase();
    const child = spawnNode('api/main.ts', {
      ...clean,
      NODE_ENV: 'production',
      DATABASE_URL: db.url,
      PORT: '0',
      APP_ALLOW_UNENCRYPTED_SECRETS: 'true',
      LOG_LEVEL: 'info',
    });
    try {
      await child.waitFor(/web process ready/, 30_000);
      const summary = child
        .output()
        .split('\n')
        .filter((line) => line.includes('security audit:'));
      assert.equal(summary.length, 1, child.output());
      assert.match(
        JSON.parse(summary[0]).msg,
        /^security audit: 1 high, 1 medium, 1 low \(secret\.missing, public-url\.missing, mail\.missing\)/,
      );
    } finally {
      child.child.kill('SIGTERM');
      await child.exited;
    }
  });
});

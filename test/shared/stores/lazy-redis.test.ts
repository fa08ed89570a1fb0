/**
 * `ioredis` is loaded only when Redis is the shared backend. A process on the
 * PostgreSQL or in-process backend (a child Node with a resolve hook recording what it imports)
 * never asks for it; one on Redis asks only once the store is used.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { ROOT } from '../../helpers/processes.ts';

function importsIoredis(backend: string, use: boolean): boolean {
  const script = `
    import { registerHooks } from 'node:module';
    let seen = false;
    registerHooks({ resolve(specifier, context, next) { if (specifier === 'ioredis') seen = true; return next(specifier, context); } });
    const { openSharedStore } = await import('./shared/stores/open.ts');
    const { resolveConfig } = await import('./shared/config/index.ts');
    const { createLogger } = await import('./shared/log/logger.ts');
    const { config } = resolveConfig({ env: { NODE_ENV: 'test', DATABASE_URL: 'postgres://127.0.0.1:1/none' }, flags: { shared: { backend: ${JSON.stringify(backend)}, url: 'redis://127.0.0.1:1' } } });
    const store = openSharedStore({ config, log: createLogger(config, { name: 'probe' }) });
    if (${use}) await store.ping().catch(() => undefined);
    await store.stop().catch(() => undefined);
    process.stdout.write(String(seen));
    process.exit(0);`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout.trim() === 'true';
}

describe('the Redis client is loaded only for the Redis backend', () => {
  it('not for none or postgres; for redis at first use only', () => {
    assert.equal(importsIoredis('none', true), false);
    assert.equal(importsIoredis('postgres', false), false);
    assert.equal(importsIoredis('redis', false), false, 'opening the store loads nothing yet');
    assert.equal(importsIoredis('redis', true), true, 'using it does');
  });
});

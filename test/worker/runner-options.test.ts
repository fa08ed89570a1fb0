import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { resolveConfig } from '../../shared/config/index.ts';
import { graphilePoolSize, localQueueSize } from '../../worker/runner.ts';

const configWith = (concurrency?: number) =>
  resolveConfig({
    env: {
      NODE_ENV: 'production',
      ...(concurrency === undefined ? {} : { APP_WEBHOOKS__CONCURRENCY: String(concurrency) }),
    },
  }).config;

describe('the worker runner’s tuning', () => {
  it('runs 128 deliveries at once by default, with a local queue of twice that', () => {
    const config = configWith();
    assert.equal(config.webhooks.concurrency, 128);
    assert.equal(localQueueSize(config), 256);
  });

  it('never lets graphile-worker’s own pool grow past 34 connections, whatever the concurrency (the connection budget in docs/scaling.md)', () => {
    assert.deepEqual(
      [1, 8, 32, 128, 1000].map((concurrency) => graphilePoolSize(configWith(concurrency))),
      [3, 10, 34, 34, 34],
    );
  });
});

/**
 * The Redis shared store and its url's credentials: Redis refusing them (a wrong password) is
 * logged with its reason, and without the password that ioredis hangs on the error among the
 * arguments of the refused command (`HELLO 3 AUTH <user> <password>`).
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { resolveConfig } from '../../../shared/config/index.ts';
import { createLogger } from '../../../shared/log/logger.ts';
import { redisStore } from '../../../shared/stores/redis.ts';
import { throttledFailureLog } from '../../../shared/stores/throttle.ts';
import { linesInto } from '../../helpers/logs.ts';
import { eventually } from '../../helpers/poll.ts';
import { REDIS_SKIP, startRedis } from './redis-server.ts';

describe('the redis store refused its credentials', { skip: REDIS_SKIP }, () => {
  it('logs the refusal (WRONGPASS, the command hello) without the password, at trace level', async () => {
    const redis = await startRedis();
    const { config } = resolveConfig({ env: { NODE_ENV: 'production', LOG_LEVEL: 'trace' } });
    const lines: Record<string, unknown>[] = [];
    const log = createLogger(config, { name: 'test', destination: linesInto(lines) });
    const password = 'redis-pw-never-logged';
    const store = redisStore({
      url: redis.url.replace('redis://', `redis://someone:${password}@`),
      timeoutMs: 2000,
      log,
      logFailure: throttledFailureLog(log, { intervalMs: 0 }),
    });
    after(() => store.stop());
    await store.start();
    const refused = await eventually(
      () => lines.find((line) => /WRONGPASS/.test(JSON.stringify(line))),
      10_000,
      'the refusal to be logged',
    );
    assert.match(JSON.stringify(refused), /"name":"hello"/, 'the refused command is still named');
    assert.doesNotMatch(JSON.stringify(lines), new RegExp(password));
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../../../shared/log/logger.ts';
import { resolveConfig } from '../../../shared/config/index.ts';
import { FAILURE_LOG_INTERVAL_MS, throttledFailureLog } from '../../../shared/stores/throttle.ts';
import { linesInto } from '../../helpers/logs.ts';

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const { config } = resolveConfig({ env: { NODE_ENV: 'test' } });
  const log = createLogger(config, {
    name: 'test',
    destination: linesInto(lines),
  });
  return { log, lines };
}

describe('store failure log throttle', () => {
  it('the interval is ten seconds', () => {
    assert.equal(FAILURE_LOG_INTERVAL_MS, 10_000);
  });

  it('writes one line per ten seconds however many failures, then says how many it kept quiet about', () => {
    let clock = 1_000_000;
    const { log, lines } = capture();
    const logFailure = throttledFailureLog(log, { now: () => clock });
    for (let i = 0; i < 100; i += 1) {
      logFailure(new Error('ECONNREFUSED'), 'rate limiter global');
      clock += 50; // 100 failures over 5 s
    }
    assert.equal(lines.length, 1);
    assert.equal(lines[0].msg, 'shared store failed: rate limiter global');
    assert.equal(lines[0].level, 50);
    clock = 1_000_000 + 9_999;
    logFailure(new Error('ECONNREFUSED'), 'idempotency record');
    assert.equal(lines.length, 1, 'still within ten seconds');
    clock = 1_000_000 + 10_000;
    logFailure(new Error('ECONNREFUSED'), 'idempotency record');
    assert.equal(lines.length, 2);
    assert.equal(lines[1].suppressed, 100);
    assert.match(String(lines[1].msg), /idempotency record \(100 more since the last line\)/);
  });
});

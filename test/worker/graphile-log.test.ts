/**
 * graphile-worker's lines through the worker's logger (worker/graphile-log.ts): its advice about a
 * pool smaller than the concurrency, which this worker's batched statements make by design, is
 * kept at debug; its other warnings stay warnings.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveConfig } from '../../shared/config/index.ts';
import { createLogger } from '../../shared/log/logger.ts';
import { workerGraphileLogger } from '../../worker/graphile-log.ts';
import { linesInto } from '../helpers/logs.ts';

describe("graphile-worker's lines", () => {
  it('the pool-size advice is a debug line; any other warning stays a warning', () => {
    const lines: Record<string, unknown>[] = [];
    const config = resolveConfig({ env: { NODE_ENV: 'test', LOG_LEVEL: 'debug' } }).config;
    const logger = workerGraphileLogger(createLogger(config, { name: 'test', destination: linesInto(lines) }));
    logger.warn('WARNING: having maxPoolSize (34) smaller than concurrency (128) may lead to non-optimal performance.');
    logger.warn('Failed to release job');
    assert.deepEqual(
      lines.map((line) => [line.level, line.msg]),
      [
        [20, 'WARNING: having maxPoolSize (34) smaller than concurrency (128) may lead to non-optimal performance.'],
        [40, 'Failed to release job'],
      ],
    );
  });
});

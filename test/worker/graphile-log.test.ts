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

  it("a job's routine lines (found, completed) are debug lines, with the job named; at info nothing is written", () => {
    const job = { id: '7', task_identifier: 'app/webhook', attempts: 1, payload: { deliveryId: 'msg_x', body: '{}' } };
    const written = (level: string) => {
      const lines: Record<string, unknown>[] = [];
      const config = resolveConfig({ env: { NODE_ENV: 'test', LOG_LEVEL: level } }).config;
      const logger = workerGraphileLogger(createLogger(config, { name: 'test', destination: linesInto(lines) }));
      logger.debug('Found task 7 (app/webhook)', { job } as never);
      logger.info('Completed task 7 (app/webhook, 1.20ms)', { job } as never);
      return lines;
    };
    assert.deepEqual(
      written('debug').map((line) => [line.level, line.msg, line.job]),
      [
        [20, 'Found task 7 (app/webhook)', { id: '7', task: 'app/webhook', attempts: 1, delivery: 'msg_x' }],
        [
          20,
          'Completed task 7 (app/webhook, 1.20ms)',
          { id: '7', task: 'app/webhook', attempts: 1, delivery: 'msg_x' },
        ],
      ],
    );
    assert.deepEqual(written('info'), []);
  });
});

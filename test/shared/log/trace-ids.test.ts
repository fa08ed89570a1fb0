/**
 * Logs join traces: a line written inside a traced span carries the ids of its trace and span
 * (`trace_id`, `span_id`), a line written outside any span carries neither. The SDK is started in
 * this process as a process starts it, exporting to a receiver of this file.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { resolveConfig } from '../../../shared/config/index.ts';
import { createLogger, type Logger } from '../../../shared/log/logger.ts';
import { inSpan } from '../../../shared/telemetry/in-span.ts';
import { startTelemetry, type Telemetry } from '../../../shared/telemetry/start.ts';
import { startOtlpReceiver } from '../../helpers/otlp-receiver.ts';

const lines: Record<string, unknown>[] = [];
let log: Logger;
let telemetry: Telemetry;

describe('log lines inside a traced span', () => {
  before(async () => {
    const otlp = await startOtlpReceiver();
    const { config } = resolveConfig({ env: { NODE_ENV: 'test', OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint } });
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    log = createLogger({ ...config, logLevel: 'info' }, { name: 'test', destination });
    telemetry = await startTelemetry({ config, log }, 'test');
    assert.equal(telemetry.enabled, true);
  });
  after(() => telemetry.shutdown());

  it('carry trace_id and span_id of the active span, also in an await further down', async () => {
    const ids = await inSpan('work', {}, async (span) => {
      await new Promise((resolve) => setImmediate(resolve));
      log.info('inside');
      return span.spanContext();
    });
    const inside = lines.find((line) => line.msg === 'inside');
    assert.equal(inside?.trace_id, ids.traceId);
    assert.equal(inside?.span_id, ids.spanId);
  });

  it('carry neither outside any span', () => {
    log.info('outside');
    const outside = lines.find((line) => line.msg === 'outside');
    assert.ok(outside);
    assert.equal('trace_id' in outside, false);
    assert.equal('span_id' in outside, false);
  });
});

/**
 * The `grpc` OTLP protocol where spans really go: a gRPC trace service on the loopback (the
 * collector's `TraceService/Export`, served with `@grpc/grpc-js`) receives the spans of a process
 * whose protocol is `grpc`, at the endpoint given as it is (nothing appended), with the process's
 * service name on their resource.
 *
 * One tracing SDK per process (it registers itself globally): this file starts it once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveConfig } from '../../../shared/config/index.ts';
import { createLogger } from '../../../shared/log/logger.ts';
import { inSpan } from '../../../shared/telemetry/in-span.ts';
import { startTelemetry } from '../../../shared/telemetry/start.ts';
import { linesInto } from '../../helpers/logs.ts';
import { startOtlpGrpcReceiver } from '../../helpers/otlp-receiver.ts';

describe('OTLP over gRPC', () => {
  it('OTEL_EXPORTER_OTLP_PROTOCOL=grpc: the spans reach the trace service at the endpoint as given', async () => {
    const otlp = await startOtlpGrpcReceiver();
    const { config } = resolveConfig({
      env: {
        NODE_ENV: 'test',
        LOG_LEVEL: 'info',
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_SERVICE_NAME: 'grpc-probe',
      },
    });
    const lines: Record<string, unknown>[] = [];
    const log = createLogger(config, { name: 'test', destination: linesInto(lines) });
    const telemetry = await startTelemetry({ config, log }, 'test');
    assert.equal(telemetry.enabled, true);
    await inSpan('probe', { attributes: { 'probe.n': 7 } }, async () => {
      await inSpan('probe.child', {}, async () => {});
    });
    await telemetry.shutdown(); // exports what is buffered

    assert.deepEqual(otlp.spans.map((span) => [span.name, span.protocol]).sort(), [
      ['probe', 'grpc'],
      ['probe.child', 'grpc'],
    ]);
    const parent = otlp.spans.find((span) => span.name === 'probe');
    const child = otlp.spans.find((span) => span.name === 'probe.child');
    assert.equal(child?.parentSpanId, parent?.spanId, 'the child span names its parent');
    assert.equal(child?.traceId, parent?.traceId);
    assert.equal(parent?.attributes['probe.n'], 7);
    assert.equal(parent?.resource['service.name'], 'grpc-probe', 'OTEL_SERVICE_NAME on the resource');
    assert.ok(otlp.calls.length > 0 && otlp.calls.every((call) => call.endsWith('TraceService/Export')));
    const started = lines.find((line) => line.msg === 'traces exported over OTLP');
    assert.equal(started?.url, otlp.endpoint, 'gRPC uses the endpoint as given');
    assert.deepEqual(
      lines.filter((line) => String(line.msg).startsWith('otel:')),
      [],
      'the exporter reported no problem',
    );
  });
});

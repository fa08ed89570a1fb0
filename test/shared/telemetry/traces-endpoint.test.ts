/**
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` where spans really go: an OTLP receiver on the loopback
 * takes exports at a path of its own, not `/v1/traces`, and answers 404 to any other path. Set
 * beside `OTEL_EXPORTER_OTLP_ENDPOINT` (pointing at the same receiver, where the base endpoint
 * would make `/v1/traces`), every export arrives at the exact URL given; set alone in a deployed
 * web process's environment, it turns traces on and its spans arrive there too.
 *
 * One tracing SDK per process (it registers itself globally): the in-process case starts it once.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { resolveConfig } from '../../../shared/config/index.ts';
import { createLogger } from '../../../shared/log/logger.ts';
import { inSpan } from '../../../shared/telemetry/in-span.ts';
import { startTelemetry } from '../../../shared/telemetry/start.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { startWebProcess } from '../../helpers/deployment.ts';
import { linesInto } from '../../helpers/logs.ts';
import { startOtlpReceiver } from '../../helpers/otlp-receiver.ts';
import { eventually } from '../../helpers/poll.ts';

describe('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });

  it('wins over OTEL_EXPORTER_OTLP_ENDPOINT: spans arrive at its exact path, none at <endpoint>/v1/traces', async () => {
    const otlp = await startOtlpReceiver({ path: '/collector/otlp/spans' });
    const { config } = resolveConfig({
      env: {
        NODE_ENV: 'test',
        LOG_LEVEL: 'info',
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: otlp.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      },
    });
    const lines: Record<string, unknown>[] = [];
    const log = createLogger(config, { name: 'test', destination: linesInto(lines) });
    const telemetry = await startTelemetry({ config, log }, 'test');
    assert.equal(telemetry.enabled, true);
    await inSpan('probe', {}, async () => {});
    await telemetry.shutdown(); // exports what is buffered

    assert.deepEqual(
      otlp.spans.map((span) => [span.name, span.protocol]),
      [['probe', 'http/json']],
    );
    assert.ok(otlp.requests.length > 0);
    for (const request of otlp.requests) assert.equal(request, 'POST /collector/otlp/spans');
    const started = lines.find((line) => line.msg === 'traces exported over OTLP');
    assert.equal(started?.url, otlp.url);
    assert.deepEqual(
      lines.filter((line) => String(line.msg).startsWith('otel:')),
      [],
      'the exporter reported no problem',
    );
  });

  it('alone in a web process environment, turns traces on and the spans arrive at its path (http/protobuf)', async () => {
    const otlp = await startOtlpReceiver({ path: '/gateway/v2/my-traces' });
    const web = await startWebProcess({
      DATABASE_URL: db.url,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: otlp.url,
      OTEL_BSP_SCHEDULE_DELAY: '50',
    });
    const answer = await fetch(`${web.base}/livez`);
    assert.equal(answer.status, 200);
    const spans = await eventually(
      () => (otlp.spans.some((span) => span.name === 'GET /livez') ? otlp.spans : undefined),
      30_000,
      'the server span of GET /livez',
    );
    assert.ok(spans.every((span) => span.protocol === 'http/protobuf'));
    for (const request of otlp.requests) assert.equal(request, 'POST /gateway/v2/my-traces');
    await web.stop();
  });
});

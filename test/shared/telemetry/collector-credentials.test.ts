/**
 * A collector reached through a gateway whose credentials ride in the URL (`user:pass@`, or a
 * `?api_key=` query parameter): the processes' start-up line names the collector with them masked
 * (the whole userinfo, as every log line masks a URL's), and `app config` masks them, as it does a
 * database URL's password.
 *
 * One tracing SDK per process (it registers itself globally): this file starts it once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maskConfig, resolveConfig } from '../../../shared/config/index.ts';
import { createLogger } from '../../../shared/log/logger.ts';
import { inSpan } from '../../../shared/telemetry/in-span.ts';
import { startTelemetry } from '../../../shared/telemetry/start.ts';
import { linesInto } from '../../helpers/logs.ts';
import { startOtlpReceiver } from '../../helpers/otlp-receiver.ts';

describe('a collector URL that carries credentials', () => {
  it('is logged and printed with them masked', async () => {
    const otlp = await startOtlpReceiver();
    const url = new URL(otlp.url);
    url.username = 'gateway';
    url.password = 'hunter2';
    url.searchParams.set('api_key', 'hunter3');
    const { config } = resolveConfig({
      env: {
        NODE_ENV: 'test',
        LOG_LEVEL: 'info',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url.toString(),
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      },
    });
    const lines: Record<string, unknown>[] = [];
    const log = createLogger(config, { name: 'test', destination: linesInto(lines) });
    const telemetry = await startTelemetry({ config, log }, 'test');
    await inSpan('probe', {}, async () => {});
    await telemetry.shutdown();

    const started = lines.find((line) => line.msg === 'traces exported over OTLP');
    assert.equal(started?.url, `http://***@${url.host}/v1/traces?api_key=%5Bmasked%5D`);
    assert.doesNotMatch(JSON.stringify(lines), /hunter[23]/);
    const printed = maskConfig(config).telemetry as Record<string, unknown>;
    assert.doesNotMatch(JSON.stringify(printed), /hunter[23]/);
    assert.equal(printed.tracesEndpoint, `http://gateway:%5Bmasked%5D@${url.host}/v1/traces?api_key=%5Bmasked%5D`);
  });
});

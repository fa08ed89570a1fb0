/**
 * The attempt span's URL attribute: where the request went, without what may be a credential (the
 * path, unless `telemetry.recordUrlPath`, as many receivers carry their secret in it); and the
 * `traceparent` a delivery carries, one whatever the endpoint's own headers. The spans are made by
 * the SDK started in this process, exporting to a receiver of this file.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { type Config, resolveConfig } from '../../../shared/config/index.ts';
import { createLogger } from '../../../shared/log/logger.ts';
import { startTelemetry } from '../../../shared/telemetry/start.ts';
import { dialledUrl, inAttemptSpan, withTraceparent } from '../../../worker/delivery/attempt-span.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../../helpers/otlp-receiver.ts';

const SLACK_LIKE = 'https://user:s3cret@hooks.example.com:8443/services/T0/B0/path-secret-4b1d?token=abc#x';

describe('the attempt span URL', () => {
  it('has no userinfo, no query, no fragment and no path by default', () => {
    assert.deepEqual(dialledUrl(SLACK_LIKE, false), {
      full: 'https://hooks.example.com:8443/REDACTED',
      host: 'hooks.example.com',
      port: 8443,
    });
  });

  it('has the path, and still no userinfo, query or fragment, with recordUrlPath', () => {
    assert.equal(dialledUrl(SLACK_LIKE, true)?.full, 'https://hooks.example.com:8443/services/T0/B0/path-secret-4b1d');
  });

  it('keeps a bare / path, which holds nothing', () => {
    assert.equal(dialledUrl('https://hooks.example.com/?token=abc', false)?.full, 'https://hooks.example.com/');
  });

  it('names the default port of its scheme', () => {
    assert.equal(dialledUrl('https://hooks.example.com/h', false)?.port, 443);
    assert.equal(dialledUrl('http://hooks.example.com/h', false)?.port, 80);
  });

  it('is left out for a URL that does not parse', () => {
    assert.equal(dialledUrl('not a url', false), null);
  });
});

describe('telemetry.recordUrlPath on exported attempt spans', () => {
  let otlp: OtlpReceiver;
  let config: Config;
  const spans = new Map<string, ReceivedSpan>();

  /** Runs one traced attempt to `url` with `config`, named by its delivery id. */
  const attempt = (deliveryId: string, url: string, with_: Config) =>
    inAttemptSpan(
      { config: with_, telemetry: { enabled: true } },
      { deliveryId, endpointId: 'ep_1', event: 'order.created', number: 1, url },
      async (span) => span.record({ kind: 'response', status: 200, excerpt: '', durationMs: 3 }, 'done'),
    );

  before(async () => {
    otlp = await startOtlpReceiver();
    config = resolveConfig({ env: { NODE_ENV: 'test', OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint } }).config;
    const recording = resolveConfig({
      env: { NODE_ENV: 'test', OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, APP_TELEMETRY__RECORD_URL_PATH: 'true' },
    }).config;
    const log = createLogger({ ...config, logLevel: 'silent' }, { name: 'test' });
    const telemetry = await startTelemetry({ config, log }, 'test');
    assert.equal(telemetry.enabled, true);
    await attempt('dlv_default', SLACK_LIKE, config);
    await attempt('dlv_recorded', SLACK_LIKE, recording);
    await telemetry.shutdown(); // exports what is buffered
    for (const span of otlp.spans) spans.set(String(span.attributes['app.delivery.id']), span);
  });

  it('is off by default', () => {
    assert.equal(config.telemetry.recordUrlPath, false);
  });

  it('by default, the span has scheme, host and port, the path replaced, and no secret of the URL', () => {
    const span = spans.get('dlv_default');
    assert.ok(span, `spans exported: ${JSON.stringify([...spans.keys()])}`);
    assert.equal(span.attributes['url.full'], 'https://hooks.example.com:8443/REDACTED');
    assert.equal(span.attributes['server.address'], 'hooks.example.com');
    assert.equal(span.attributes['server.port'], 8443);
    assert.equal('url.path' in span.attributes, false);
    const exported = JSON.stringify(span.attributes);
    for (const secret of ['path-secret-4b1d', 'T0/B0', 's3cret', 'token'])
      assert.ok(!exported.includes(secret), secret);
  });

  it('with APP_TELEMETRY__RECORD_URL_PATH=true, the span has the path, never the query or credentials', () => {
    const span = spans.get('dlv_recorded');
    assert.ok(span, `spans exported: ${JSON.stringify([...spans.keys()])}`);
    assert.equal(span.attributes['url.full'], 'https://hooks.example.com:8443/services/T0/B0/path-secret-4b1d');
    const exported = JSON.stringify(span.attributes);
    for (const secret of ['s3cret', 'token=abc']) assert.ok(!exported.includes(secret), secret);
  });
});

describe('the traceparent of a delivery', () => {
  const ours = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

  it("replaces an endpoint's own traceparent and tracestate in any spelling, keeping its other headers", () => {
    assert.deepEqual(
      withTraceparent(
        { 'X-Tenant': 'acme', Traceparent: '00-aaaa-bbbb-01', TRACESTATE: 'vendor=1', traceparent: 'x' },
        ours,
      ),
      { 'X-Tenant': 'acme', traceparent: ours },
    );
  });

  it('adds it to headers that hold none', () => {
    assert.deepEqual(withTraceparent({}, ours), { traceparent: ours });
  });
});

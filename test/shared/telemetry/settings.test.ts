/**
 * When a process traces, and where to: the standard `OTEL_*` variables alone turn traces on and
 * off, the `telemetry` keys do the same, and off is the default. The traces-specific endpoint is
 * the whole URL and wins over the base one (OpenTelemetry's "OTLP Exporter
 * Configuration"); where spans then really arrive: traces-endpoint.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveConfig } from '../../../shared/config/index.ts';
import { telemetryTarget } from '../../../shared/telemetry/settings.ts';

const targetOf = (env: Record<string, string>, flags: Record<string, unknown> = {}) =>
  telemetryTarget(resolveConfig({ env: { NODE_ENV: 'test', ...env }, flags }).config);

describe('telemetry settings', () => {
  it('off by default: no endpoint, no telemetry key', () => {
    assert.equal(targetOf({}), null);
  });

  it('OTEL_EXPORTER_OTLP_ENDPOINT alone turns traces on, to <endpoint>/v1/traces over http/protobuf', () => {
    assert.deepEqual(targetOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }), {
      url: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      serviceName: 'app-webhooks',
    });
  });

  it('OTEL_SDK_DISABLED=true turns them off whatever else is set', () => {
    assert.equal(targetOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }), null);
    assert.equal(targetOf({ OTEL_SDK_DISABLED: 'true' }, { telemetry: { enabled: true } }), null);
  });

  it('OTEL_EXPORTER_OTLP_PROTOCOL and OTEL_SERVICE_NAME are read; the traces-specific protocol wins', () => {
    const target = targetOf({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'hooks',
    });
    assert.deepEqual(target, { url: 'http://collector:4318/v1/traces', protocol: 'http/json', serviceName: 'hooks' });
  });

  it('telemetry.enabled without an endpoint exports to the local collector; false turns an endpoint off', () => {
    assert.equal(targetOf({}, { telemetry: { enabled: true } })?.url, 'http://localhost:4318/v1/traces');
    assert.equal(targetOf({}, { telemetry: { enabled: true, protocol: 'grpc' } })?.url, 'http://localhost:4317');
    assert.equal(
      targetOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, { telemetry: { enabled: false } }),
      null,
    );
  });

  it('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT alone turns traces on, its URL used as given (nothing appended)', () => {
    assert.deepEqual(targetOf({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://gateway.example/otlp/spans' }), {
      url: 'https://gateway.example/otlp/spans',
      protocol: 'http/protobuf',
      serviceName: 'app-webhooks',
    });
    // no path is no path, and a trailing slash is kept: the URL is the whole URL
    assert.equal(
      targetOf({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318' })?.url,
      'http://collector:4318',
    );
    assert.equal(
      targetOf({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces/' })?.url,
      'http://collector:4318/v1/traces/',
    );
    assert.equal(targetOf({ APP_TELEMETRY__TRACES_ENDPOINT: 'http://c:4318/t' })?.url, 'http://c:4318/t');
  });

  it('the traces-specific endpoint wins over OTEL_EXPORTER_OTLP_ENDPOINT, over every protocol', () => {
    for (const protocol of ['http/protobuf', 'http/json', 'grpc']) {
      const target = targetOf({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://base:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:4318/custom/path',
        OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
      });
      assert.deepEqual(target, { url: 'http://traces:4318/custom/path', protocol, serviceName: 'app-webhooks' });
    }
    // whatever layer sets the base endpoint: the traces-specific one is the more specific setting
    assert.equal(
      targetOf({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:4318/t' }, { telemetry: { endpoint: 'http://b' } })
        ?.url,
      'http://traces:4318/t',
    );
    // a higher layer that sets it to null gives the base endpoint back
    assert.equal(
      targetOf(
        { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:4318/t' },
        { telemetry: { endpoint: 'http://b:4318', tracesEndpoint: null } },
      )?.url,
      'http://b:4318/v1/traces',
    );
  });

  it('over grpc either endpoint is used as given', () => {
    const grpc = { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' };
    assert.equal(targetOf({ ...grpc, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://base:4317' })?.url, 'http://base:4317');
    assert.equal(
      targetOf({ ...grpc, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:4317' })?.url,
      'http://traces:4317',
    );
  });

  it('an empty OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is unset: the base endpoint, or no traces', () => {
    assert.equal(
      targetOf({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://base:4318' })?.url,
      'http://base:4318/v1/traces',
    );
    assert.equal(targetOf({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '' }), null);
  });

  it('OTEL_SDK_DISABLED=true and telemetry.enabled: false turn off a traces-specific endpoint too', () => {
    const traces = { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:4318/t' };
    assert.equal(targetOf({ ...traces, OTEL_SDK_DISABLED: 'true' }), null);
    assert.equal(targetOf(traces, { telemetry: { enabled: false } }), null);
  });

  it('an unknown protocol stops the start with the setting named', () => {
    assert.throws(() => targetOf({ OTEL_EXPORTER_OTLP_PROTOCOL: 'carrier-pigeon' }), /telemetry\.protocol/);
  });
});

/**
 * When a process traces, and where to: the standard `OTEL_*` variables alone turn traces on and
 * off, the `telemetry` keys do the same, and off is the default.
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

  it('an unknown protocol stops the start with the setting named', () => {
    assert.throws(() => targetOf({ OTEL_EXPORTER_OTLP_PROTOCOL: 'carrier-pigeon' }), /telemetry\.protocol/);
  });
});

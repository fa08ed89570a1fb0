/**
 * The OpenTelemetry Node SDK as the service starts it, loaded by start.ts only when traces are on:
 * traces alone (no metrics or logs exporter, whatever `OTEL_METRICS_EXPORTER` says: metrics are
 * Prometheus's, docs/operations.md), one OTLP exporter of the configured protocol behind the SDK's
 * batch processor (`OTEL_BSP_*`), the sampler of `OTEL_TRACES_SAMPLER` (default
 * `parentbased_always_on`: a client's sampled `traceparent` is followed), W3C trace context, and the
 * resource of `OTEL_RESOURCE_ATTRIBUTES`, the host and the OS.
 */
import { diag, DiagLogLevel, type DiagLogger } from '@opentelemetry/api';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { envDetector, hostDetector, osDetector, serviceInstanceIdDetector } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { Logger } from '../log/logger.ts';
import type { TelemetryTarget } from './settings.ts';

/**
 * The exporter of `target.protocol`, sending to `target.url` as settings.ts made it (the whole
 * URL: the exporter appends nothing to a URL it is given, and a given URL wins over its own
 * reading of the `OTEL_EXPORTER_OTLP_*ENDPOINT` variables); headers (`OTEL_EXPORTER_OTLP_HEADERS`)
 * and timeouts come from the environment.
 */
function exporterFor(target: TelemetryTarget) {
  if (target.protocol === 'grpc') return new GrpcExporter({ url: target.url });
  if (target.protocol === 'http/json') return new JsonExporter({ url: target.url });
  return new ProtobufExporter({ url: target.url });
}

/** The SDK's diagnostics, as warnings of the process's log (its debug chatter is left out). */
function diagnostics(log: Logger): DiagLogger {
  const warn = (message: string, ...args: unknown[]) =>
    log.warn({ otel: args.length > 0 ? args.map(String) : undefined }, `otel: ${message}`);
  const ignore = () => {};
  return { error: warn, warn, info: ignore, debug: ignore, verbose: ignore };
}

/** Starts the SDK and answers it (its `shutdown` flushes the spans still buffered). */
export function startSdk(target: TelemetryTarget, log: Logger): NodeSDK {
  diag.setLogger(diagnostics(log), { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
  const sdk = new NodeSDK({
    serviceName: target.serviceName,
    traceExporter: exporterFor(target),
    // not the process detector: its `process.command_args` would export a CLI's `--data` payload
    resourceDetectors: [envDetector, hostDetector, osDetector, serviceInstanceIdDetector],
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
  });
  sdk.start();
  return sdk;
}

/**
 * Whether a process traces, and where its spans go, from the resolved configuration: the
 * `telemetry` keys, which the standard `OTEL_*` variables feed (shared/config/schema.ts). A
 * plain function of the config, so every process decides the same way and a test can ask it.
 */
import type { Config } from '../config/index.ts';

/** OTLP transports of spans. */
export type TelemetryProtocol = Config['telemetry']['protocol'];

/** Where and how spans are exported, when traces are on. */
export interface TelemetryTarget {
  /**
   * The URL spans are sent to: `telemetry.tracesEndpoint` as given; else `<endpoint>/v1/traces`
   * over HTTP, the endpoint itself over gRPC.
   */
  url: string;
  protocol: TelemetryProtocol;
  serviceName: string;
}

/** The collectors' conventional addresses: OTLP over HTTP listens on 4318, over gRPC on 4317. */
const DEFAULT_ENDPOINT: Record<TelemetryProtocol, string> = {
  'http/protobuf': 'http://localhost:4318',
  'http/json': 'http://localhost:4318',
  grpc: 'http://localhost:4317',
};

/**
 * The export target, or null when traces are off: `OTEL_SDK_DISABLED=true`
 * (`telemetry.sdkDisabled`) or `telemetry.enabled: false` turn them off; otherwise they are on
 * when `telemetry.enabled` is true or an endpoint is set (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`,
 * `OTEL_EXPORTER_OTLP_ENDPOINT`).
 *
 * As the OpenTelemetry specification has it ("OTLP Exporter Configuration"), the traces-specific
 * endpoint is the whole URL, used as is with every protocol, and wins over the base endpoint; to
 * the base endpoint the HTTP protocols append `/v1/traces` (gRPC uses it as given).
 */
export function telemetryTarget(config: Pick<Config, 'telemetry'>): TelemetryTarget | null {
  const { enabled, sdkDisabled, endpoint, tracesEndpoint, protocol, serviceName } = config.telemetry;
  if (sdkDisabled || enabled === false) return null;
  const exact = tracesEndpoint?.trim() || null;
  const given = endpoint?.trim() || null;
  if (enabled !== true && exact === null && given === null) return null;
  if (exact !== null) return { url: exact, protocol, serviceName };
  const base = (given ?? DEFAULT_ENDPOINT[protocol]).replace(/\/+$/, '');
  return { url: protocol === 'grpc' ? base : `${base}/v1/traces`, protocol, serviceName };
}

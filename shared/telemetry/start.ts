/**
 * Starting and stopping a process's tracing. Off (the default: no endpoint, or
 * `OTEL_SDK_DISABLED=true`), nothing is loaded: the SDK and its exporters are imported only when
 * traces are on, so a process that does not trace pays neither their load nor their memory, and
 * `@opentelemetry/api` answers its no-op tracer.
 */
import { type Config, maskUrl } from '../config/index.ts';
import type { Logger } from '../log/logger.ts';
import { telemetryTarget } from './settings.ts';

/** A process's tracing, started once at its start and shut down last. */
export interface Telemetry {
  /** Whether spans are recorded and exported. */
  readonly enabled: boolean;
  /** Exports the spans still buffered and stops (bounded: a collector that does not answer is given up). */
  shutdown(): Promise<void>;
}

/** Tracing off: no SDK, nothing to flush. */
export const TELEMETRY_OFF: Telemetry = Object.freeze({ enabled: false, shutdown: async () => {} });

/** Longest wait at shutdown for the last spans to be exported. */
export const FLUSH_LIMIT_MS = 5_000;

/**
 * Starts the OpenTelemetry SDK for process `name` (`web`, `worker`, `cli`) when the config turns
 * traces on (settings.ts), else answers {@link TELEMETRY_OFF} without loading it. The SDK's own
 * problems (a collector that refuses spans) are logged as warnings; they never stop the process.
 */
export async function startTelemetry(
  deps: { config: Pick<Config, 'telemetry'>; log: Logger },
  name: string,
): Promise<Telemetry> {
  const target = telemetryTarget(deps.config);
  if (target === null) return TELEMETRY_OFF;
  const { startSdk } = await import('./sdk.ts');
  const sdk = startSdk(target, deps.log);
  deps.log.info(
    { url: maskUrl(target.url), protocol: target.protocol, service: target.serviceName, process: name },
    'traces exported over OTLP',
  );
  let stopping: Promise<void> | undefined;
  return {
    enabled: true,
    shutdown() {
      stopping ??= Promise.race([
        sdk
          .shutdown()
          .catch((error: unknown) => deps.log.warn({ err: error }, 'traces: the last spans could not be exported')),
        new Promise<void>((resolve) => setTimeout(resolve, FLUSH_LIMIT_MS).unref()),
      ]);
      return stopping;
    },
  };
}

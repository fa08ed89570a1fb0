/**
 * The service's tracer and the names of what it records. With the SDK not started (telemetry
 * off) `@opentelemetry/api` answers its no-op tracer: spans cost a few property reads and
 * record nothing.
 */
import { trace, type Tracer } from '@opentelemetry/api';

/** Instrumentation scope of every span the service makes. */
export const TRACER_NAME = 'app-webhooks';

/** The tracer of the SDK started in this process (start.ts), or the no-op one. */
export const tracer = (): Tracer => trace.getTracer(TRACER_NAME);

/**
 * Attribute names of the service's own spans (`app.*`), beside the OpenTelemetry semantic
 * conventions' `http.*`, `url.*` and `server.*`. None ever holds a payload, a secret or a
 * header value.
 */
export const ATTRIBUTES = {
  eventType: 'app.event.type',
  eventId: 'app.event.id',
  owner: 'app.event.owner',
  fanout: 'app.event.fanout',
  deliveryId: 'app.delivery.id',
  endpointId: 'app.endpoint.id',
  attempt: 'app.delivery.attempt',
  outcome: 'app.delivery.outcome',
  durationMs: 'app.delivery.duration_ms',
} as const;

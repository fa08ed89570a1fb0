/**
 * The W3C Trace Context `traceparent` value (https://www.w3.org/TR/trace-context/#traceparent-header):
 * `00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`. It is how a span's context is kept
 * with a delivery until its attempts run (possibly hours later, in another process) and what a
 * receiver is sent, whatever propagators the SDK is configured with.
 */
import { type Context, isSpanContextValid, ROOT_CONTEXT, type SpanContext, trace } from '@opentelemetry/api';

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The `traceparent` naming `spanContext`, or null when it is not a valid context (tracing off). */
export function formatTraceparent(spanContext: SpanContext | undefined): string | null {
  if (!spanContext || !isSpanContextValid(spanContext)) return null;
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0');
  return `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
}

/**
 * The span context a `traceparent` names (remote), or null for anything else: a version `ff`,
 * an all-zero id, a wrong length or case (section 3.2.2: such a value is ignored, not repaired).
 */
export function parseTraceparent(value: unknown): SpanContext | null {
  if (typeof value !== 'string') return null;
  const match = TRACEPARENT.exec(value.trim());
  if (!match || match[1] === 'ff') return null;
  const spanContext: SpanContext = {
    traceId: match[2],
    spanId: match[3],
    traceFlags: Number.parseInt(match[4], 16),
    isRemote: true,
  };
  return isSpanContextValid(spanContext) ? spanContext : null;
}

/** A context whose parent is the span `traceparent` names; the root context when it names none. */
export function contextOfTraceparent(value: unknown): Context {
  const parent = parseTraceparent(value);
  return parent ? trace.setSpanContext(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
}

/** The `traceparent` of the span active now, or null (none, or tracing off). */
export const activeTraceparent = (): string | null => formatTraceparent(trace.getActiveSpan()?.spanContext());

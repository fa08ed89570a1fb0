/**
 * The `emit` span: one per emit or send, a child of the request (or CLI command, or delivery
 * attempt) that emits, and the parent of every attempt of the deliveries it writes (its context is
 * kept with each delivery: enqueue.ts). It says what was emitted and how far it fanned out, never
 * the payload.
 */
import { SpanKind, type Span } from '@opentelemetry/api';
import { inSpan } from '../../telemetry/in-span.ts';
import { ATTRIBUTES } from '../../telemetry/tracer.ts';

/** What an emit tells its span as it learns it. */
export interface EmitSpan {
  describe(facts: { type?: string; owner?: string | null; eventId?: string | null; fanout?: number }): void;
}

function emitSpan(span: Span): EmitSpan {
  return {
    describe(facts) {
      if (!span.isRecording()) return;
      if (facts.type !== undefined) span.setAttribute(ATTRIBUTES.eventType, facts.type);
      if (facts.owner) span.setAttribute(ATTRIBUTES.owner, facts.owner);
      if (facts.eventId) span.setAttribute(ATTRIBUTES.eventId, facts.eventId);
      if (facts.fanout !== undefined) span.setAttribute(ATTRIBUTES.fanout, facts.fanout);
    },
  };
}

/** Runs `work` as the active `emit` span. */
export const inEmitSpan = <T>(work: (span: EmitSpan) => Promise<T>): Promise<T> =>
  inSpan('emit', { kind: SpanKind.INTERNAL }, (span) => work(emitSpan(span)));

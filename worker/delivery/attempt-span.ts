/**
 * The span of one delivery attempt, a child of the `emit` span whose context the delivery keeps
 * (shared/webhooks/deliveries/job.ts `traceparent`), so every attempt of an event, retries hours
 * later included, is in the event's trace. With `webhooks.traceHeaders` the receiver is sent a
 * W3C `traceparent` naming this span, so a receiver that traces joins the trace too.
 *
 * It records the endpoint, the delivery, the attempt number, the URL dialled (its origin; its path
 * only with `telemetry.recordUrlPath`, since many receivers carry a secret in the path, Slack's and
 * Discord's webhook URLs among them; never credentials, and never the query, which may carry a
 * token), the address connected to, the status, the duration and the outcome; never the body, a
 * header or a secret.
 */
import { type Span, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { Config } from '../../shared/config/index.ts';
import { inSpan } from '../../shared/telemetry/in-span.ts';
import type { Telemetry } from '../../shared/telemetry/start.ts';
import { contextOfTraceparent, formatTraceparent } from '../../shared/telemetry/traceparent.ts';
import { ATTRIBUTES } from '../../shared/telemetry/tracer.ts';
import type { AttemptResult } from './post.ts';

/** What an attempt tells its span, and what the span adds to the attempt's request. */
export interface AttemptSpan {
  /** `headers` with this attempt's `traceparent` added (when the worker traces and `webhooks.traceHeaders`). */
  headers(headers: Record<string, string>): Record<string, string>;
  /** Records what the attempt came to. */
  record(result: AttemptResult, outcome: string): void;
}

const UNTRACED: AttemptSpan = { headers: (headers) => headers, record: () => {} };

/**
 * What stands for a path left out of `url.full`: the word the OpenTelemetry URL conventions redact
 * credentials and query values with, so a collector still gets the absolute URL the HTTP client
 * span requires, and a reader sees that a path was there.
 */
export const REDACTED_PATH = '/REDACTED';

/**
 * The attempt's URL as span attributes: scheme, host and port, and the path when `recordPath`
 * (else {@link REDACTED_PATH}, unless the path is just `/`); never userinfo, query or fragment.
 */
export function dialledUrl(url: string, recordPath: boolean): { full: string; host: string; port: number } | null {
  try {
    const parsed = new URL(url);
    const port = parsed.port === '' ? (parsed.protocol === 'http:' ? 80 : 443) : Number(parsed.port);
    const path = recordPath || parsed.pathname === '/' ? parsed.pathname : REDACTED_PATH;
    return { full: `${parsed.protocol}//${parsed.host}${path}`, host: parsed.hostname, port };
  } catch {
    return null;
  }
}

/** Why an attempt failed, as `error.type`: the status of an answer, else the kind of failure. */
const failureType = (result: AttemptResult): string =>
  result.kind === 'response' ? String(result.status) : result.kind;

const TRACE_HEADERS = new Set(['traceparent', 'tracestate']);

/**
 * `headers` with `traceparent` set to this attempt's, and without an endpoint's own `traceparent`
 * or `tracestate` in any spelling: header names are case-insensitive, so an endpoint's
 * `Traceparent` would otherwise go out beside the service's, and a receiver given two must ignore
 * both (W3C Trace Context); an endpoint's `tracestate` belongs to another trace than this one.
 */
export function withTraceparent(headers: Record<string, string>, traceparent: string): Record<string, string> {
  const kept = Object.entries(headers).filter(([name]) => !TRACE_HEADERS.has(name.toLowerCase()));
  return { ...Object.fromEntries(kept), traceparent };
}

function attemptSpan(span: Span, config: Pick<Config, 'webhooks'>): AttemptSpan {
  const traceparent = config.webhooks.traceHeaders ? formatTraceparent(span.spanContext()) : null;
  return {
    headers: (headers) => (traceparent === null ? headers : withTraceparent(headers, traceparent)),
    record(result, outcome) {
      span.setAttribute(ATTRIBUTES.outcome, outcome);
      if ('durationMs' in result) span.setAttribute(ATTRIBUTES.durationMs, result.durationMs);
      if (result.kind === 'response') span.setAttribute('http.response.status_code', result.status);
      if ('address' in result && result.address) span.setAttribute('network.peer.address', result.address);
      if (outcome !== 'done') {
        span.setAttribute('error.type', failureType(result));
        span.setStatus({ code: SpanStatusCode.ERROR, message: failureType(result) });
      }
    },
  };
}

/**
 * Runs `work` (the attempt: the POST and its recording) inside its span when the worker traces
 * (`deps.telemetry`), else with a span that does nothing.
 */
export function inAttemptSpan<T>(
  deps: { config: Pick<Config, 'webhooks' | 'telemetry'>; telemetry?: Pick<Telemetry, 'enabled'> },
  attempt: { deliveryId: string; endpointId: string; event: string; number: number; url: string; traceparent?: string },
  work: (span: AttemptSpan) => Promise<T>,
): Promise<T> {
  if (!deps.telemetry?.enabled) return work(UNTRACED);
  const url = dialledUrl(attempt.url, deps.config.telemetry.recordUrlPath);
  return inSpan(
    'attempt',
    {
      kind: SpanKind.CLIENT,
      attributes: {
        [ATTRIBUTES.deliveryId]: attempt.deliveryId,
        [ATTRIBUTES.endpointId]: attempt.endpointId,
        [ATTRIBUTES.eventType]: attempt.event,
        [ATTRIBUTES.attempt]: attempt.number,
        'http.request.method': 'POST',
        ...(url ? { 'url.full': url.full, 'server.address': url.host, 'server.port': url.port } : {}),
      },
    },
    (span) => work(attemptSpan(span, deps.config)),
    contextOfTraceparent(attempt.traceparent),
  );
}

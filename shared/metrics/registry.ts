/**
 * Prometheus metrics (docs/operations.md "Metrics"): every metric the service exports is declared here, in
 * one table a test and the README follow. Each process makes its own registry (no module-level
 * default registry), with the default process metrics (`process_*`, `nodejs_*`). No label takes
 * an unbounded value: routes are route templates, outcomes and limiters are fixed sets, and no
 * metric is labelled by endpoint, url or tenant.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Outcomes of one delivery attempt, as `app_deliveries_total{outcome}` counts them. */
export const DELIVERY_OUTCOMES = ['done', 'retry', 'dead', 'gone', 'refused'] as const;
export type DeliveryOutcomeLabel = (typeof DELIVERY_OUTCOMES)[number];

/** How a run of the hourly prune ended, as `app_prune_runs_total{outcome}` counts them. */
export const PRUNE_OUTCOMES = ['done', 'failed', 'skipped'] as const;

/**
 * Why an endpoint was disabled, as `app_endpoints_disabled_total{reason}` counts them: `gone` (its
 * receiver answered 410), `failing` (every attempt failed for `webhooks.disableAfter`), `operator`
 * (the API, GraphQL or the console).
 */
export const DISABLE_REASONS = ['gone', 'failing', 'operator'] as const;
export type DisableReason = (typeof DISABLE_REASONS)[number];

/** The reasons each process can disable an endpoint for: its series start at 0, so that a first one shows in `increase()`. */
const DISABLES_BY_PROCESS: Record<'web' | 'worker', readonly DisableReason[]> = {
  web: ['operator'],
  worker: ['gone', 'failing'],
};

/** The service's own metrics, with the labels each takes. */
export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'route' | 'method' | 'status'>;
  httpDuration: Histogram<'route' | 'method'>;
  rateLimited: Counter<'limiter'>;
  idempotentReplays: Counter;
  sharedMemoryBytes: Gauge;
  sharedMemoryEvictions: Counter<'kind'>;
  deliveries: Counter<'outcome'>;
  deliveryDuration: Histogram;
  deliveryLag: Histogram;
  filteredOut: Counter;
  httpProblems: Counter<'code' | 'status'>;
  pruneRuns: Counter<'outcome'>;
  endpointsDisabled: Counter<'reason'>;
}

/** Makes a registry with the default process metrics and every metric of the service. */
export function createMetrics(options: { process: 'web' | 'worker' }): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ process: options.process });
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const metrics: Metrics = {
    registry,
    httpRequests: new Counter({
      name: 'app_http_requests_total',
      help: 'HTTP requests answered, by route template, method and status',
      labelNames: ['route', 'method', 'status'] as const,
      registers,
    }),
    httpDuration: new Histogram({
      name: 'app_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by route template and method',
      labelNames: ['route', 'method'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    rateLimited: new Counter({
      name: 'app_rate_limited_total',
      help: 'Requests refused with 429 by a rate limiter (global, auth or route)',
      labelNames: ['limiter'] as const,
      registers,
    }),
    idempotentReplays: new Counter({
      name: 'app_idempotent_replays_total',
      help: 'Requests answered with a stored answer (Idempotency-Replayed: true)',
      registers,
    }),
    sharedMemoryBytes: new Gauge({
      name: 'app_shared_memory_bytes',
      help: 'Bytes the records of shared.backend "none" hold in this process (bounded by shared.maxMemoryBytes)',
      registers,
    }),
    sharedMemoryEvictions: new Counter({
      name: 'app_shared_memory_evictions_total',
      help: 'Records of shared.backend "none" evicted before they expired to keep within shared.maxMemoryBytes, by kind (idem, rate, lockout, console-once)',
      labelNames: ['kind'] as const,
      registers,
    }),
    deliveries: new Counter({
      name: 'app_deliveries_total',
      help: 'Delivery attempts by outcome: done, retry (failed, scheduled again), dead, gone (410: endpoint disabled), refused (address refused)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    deliveryDuration: new Histogram({
      name: 'app_delivery_duration_seconds',
      help: 'Duration of the POST of one delivery attempt (connect to the end of the answer read)',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    deliveryLag: new Histogram({
      name: 'app_delivery_lag_seconds',
      help: 'Time from the emit to the first attempt of a delivery',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers,
    }),
    filteredOut: new Counter({
      name: 'app_deliveries_filtered_total',
      help: 'Deliveries not written because the endpoint subscribed to the event type but its filter left the event out',
      registers,
    }),
    httpProblems: new Counter({
      name: 'app_http_problems_total',
      help: 'Problem answers (application/problem+json), by their APP_* code ("none" without one) and status',
      labelNames: ['code', 'status'] as const,
      registers,
    }),
    pruneRuns: new Counter({
      name: 'app_prune_runs_total',
      help: 'Runs of the hourly prune (app/prune) in this worker, by outcome: done, failed, or skipped (another prune was running)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    endpointsDisabled: new Counter({
      name: 'app_endpoints_disabled_total',
      help: 'Endpoints disabled by this process, by reason: gone (a 410), failing (webhooks.disableAfter), operator',
      labelNames: ['reason'] as const,
      registers,
    }),
  };
  for (const reason of DISABLES_BY_PROCESS[options.process]) metrics.endpointsDisabled.inc({ reason }, 0);
  if (options.process === 'worker') for (const outcome of PRUNE_OUTCOMES) metrics.pruneRuns.inc({ outcome }, 0);
  return metrics;
}

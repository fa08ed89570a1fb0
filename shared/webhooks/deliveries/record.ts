/**
 * A delivery as operators and the API see it. Its
 * state is `app_webhook_deliveries.status`: pending (queued, or waiting for a retry at
 * `nextAttemptAt`), running, done, dead. Ids are delivery ids (`msg_…`, the `webhook-id`).
 */
import { notFound } from '../../errors/app-error.ts';
import type { DeliveryStatus } from '../events/enqueue.ts';
import { clip, describeValue } from '../../errors/describe-value.ts';
import type { TenantScope } from '../../access/tenant-scope.ts';

export type { DeliveryStatus };

export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'running', 'done', 'dead'];

/** Delivery counts by state. */
export interface DeliveryCounts {
  pending: number;
  running: number;
  done: number;
  dead: number;
  total: number;
}

/** A delivery as listings present it. */
export interface DeliverySummary {
  id: string;
  status: DeliveryStatus;
  queue: string;
  endpointId: string;
  eventId: string;
  event: string;
  owner: string | null;
  attempts: number;
  /** When the next attempt is due (pending), else null. */
  nextAttemptAt: Date | null;
  /**
   * Pending with no due time: since when it waits for its endpoint to take it (a free slot of an
   * endpoint held to `webhooks.endpointConcurrency`, or its turn in a FIFO line), else null.
   */
  waitingSince: Date | null;
  /** The receiver's status at the last attempt of its current series, when it answered. */
  lastStatus: number | null;
  /**
   * Why the last attempt of its current series failed, or why the delivery is dead; null while a
   * delivery queued again has made no attempt since (the earlier series' errors stay on their
   * attempts). See {@link inCurrentSeries}.
   */
  lastError: string | null;
  /** When it was last queued again by hand (retry, resend, a replay of dead deliveries); null: never. */
  queuedAgainAt: Date | null;
  /**
   * Who queued it again: the actor's id (`usr_…`, `tok_…`, `portal:<owner>`, `operator`), as its
   * reader may see it ({@link queuedAgainByAsRead}: `other` for someone else to a caller bound to
   * one tenant); null: never, or not known.
   */
  queuedAgainBy: string | null;
  /** Attempts made before its current series (0: it was never queued again); the later ones are the current series'. */
  attemptsBefore: number;
  createdAt: Date;
  updatedAt: Date;
  completedAt: Date | null;
}

/** One recorded attempt: every attempt is kept for the operator to read. */
export interface AttemptDetails {
  attempt: number;
  startedAt: Date;
  durationMs: number;
  /** The receiver's status, or null when it did not answer. */
  status: number | null;
  outcome: 'done' | 'retry' | 'dead';
  error: string | null;
  /** The first 64 kB of the answer. */
  excerpt: string | null;
}

/** One delivery in full: its endpoint and every attempt (`jobs show <id>`). */
export interface DeliveryDetails extends DeliverySummary {
  endpoint: {
    id: string;
    url: string;
    enabled: boolean;
    disabledAt: Date | null;
    disabledReason: string | null;
  } | null;
  attemptsMade: AttemptDetails[];
}

/** A row of app_webhook_deliveries with the columns a summary shows. */
export interface DeliveryRow {
  id: string;
  status: DeliveryStatus;
  queue: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  owner: string | null;
  attempts: number;
  next_attempt_at: Date | null;
  parked_at: Date | null;
  last_status: number | null;
  last_error: string | null;
  queued_again_at: Date | null;
  queued_again_by: string | null;
  attempts_before: number | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
}

/** The columns of a summary, for alias `d`. */
export const SUMMARY_COLUMNS =
  'd.id, d.status, d.queue, d.endpoint_id, d.event_id, d.event_type, d.owner, d.attempts, d.next_attempt_at, d.parked_at, d.last_status, d.last_error, d.queued_again_at, d.queued_again_by, d.attempts_before, d.created_at, d.updated_at, d.completed_at';

/**
 * Whether the row's last status and error belong to its current series of attempts, the one rule
 * every face shows them by: a delivery queued again (retry, resend, replay) keeps the error its
 * previous series ended with on the row until its next attempt writes its own, and that error is
 * history, not its state. They are the current series' once it has made an attempt (`attempts`
 * past `attempts_before`), or once it is done or dead again (made dead without an attempt, its
 * endpoint disabled meanwhile: the error says why).
 */
export const inCurrentSeries = (row: Pick<DeliveryRow, 'status' | 'attempts' | 'attempts_before'>): boolean =>
  row.attempts_before === null || row.status === 'done' || row.status === 'dead' || row.attempts > row.attempts_before;

/** Who reads a delivery: the actor's id and tenant scope (shared/access/actor.ts `Actor`). */
export interface DeliveryReader {
  readonly id: string;
  readonly scope: TenantScope;
}

/** Who queued a delivery again, to a caller bound to one tenant, when it was neither that caller nor its tenant's portal. */
export const SOMEONE_ELSE = 'other';

/**
 * Who queued a delivery again as `reader` may see it, the one rule every face shows it by. A
 * caller reaching every tenant (an admin, the CLI) sees the id as recorded. A caller bound to one
 * tenant sees its own id, and its tenant's portal (`portal:<owner>`, the id every portal session
 * of the tenant shares); anyone else is {@link SOMEONE_ELSE}: an operator's user or token ids,
 * and the tokens of its own tenant, are not its to know (it lists only its own tokens, and no
 * users).
 */
export function queuedAgainByAsRead(recorded: string | null, reader: DeliveryReader): string | null {
  if (recorded === null || reader.scope.kind === 'all') return recorded;
  return recorded === reader.id || recorded === `portal:${reader.scope.owner}` ? recorded : SOMEONE_ELSE;
}

/** The summary of a delivery row, as `reader` may see it. */
export const summary = (row: DeliveryRow, reader: DeliveryReader): DeliverySummary => ({
  id: row.id,
  status: row.status,
  queue: row.queue,
  endpointId: row.endpoint_id,
  eventId: row.event_id,
  event: row.event_type,
  owner: row.owner,
  attempts: row.attempts,
  nextAttemptAt: row.next_attempt_at,
  waitingSince: row.status === 'pending' ? row.parked_at : null,
  lastStatus: inCurrentSeries(row) ? row.last_status : null,
  lastError: inCurrentSeries(row) ? row.last_error : null,
  queuedAgainAt: row.queued_again_at,
  queuedAgainBy: queuedAgainByAsRead(row.queued_again_by, reader),
  attemptsBefore: row.attempts_before ?? 0,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  completedAt: row.completed_at,
});

/** AppError 404 `APP_WEBHOOK_DELIVERY_NOT_FOUND`. */
export const deliveryNotFound = (id: unknown) =>
  notFound(`webhook delivery ${typeof id === 'string' ? clip(id) : describeValue(id)} does not exist`, {
    code: 'APP_WEBHOOK_DELIVERY_NOT_FOUND',
    data: { id },
  });

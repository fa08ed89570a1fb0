/**
 * Shared by the delivery store's tests: the record of a quick attempt (3 ms, 204, done), as the
 * worker gives it to `recordAttempts`.
 */
import type { AttemptRecord } from '../../../../shared/webhooks/deliveries/store.ts';

/** A done attempt of `deliveryId` (to `endpointId`) answered 204 in 3 ms: its endpoint counts as quick. */
export const quickAttempt = (
  deliveryId: string,
  endpointId: string,
  { priorAttempts = 0, release = false }: { priorAttempts?: number; release?: boolean } = {},
): AttemptRecord => ({
  deliveryId,
  priorAttempts,
  startedAt: new Date(),
  durationMs: 3,
  httpStatus: 204,
  outcome: 'done',
  error: null,
  excerpt: null,
  endpointId,
  release,
});

/**
 * In-process patience for an endpoint at its cap (docs/reliability.md "Fairness between endpoints"). A delivery
 * whose endpoint has every slot taken is parked (shared/webhooks/deliveries/store.ts), which costs a second
 * trip through the queue when the slot frees. For an endpoint that answers quickly, a slot frees in
 * a few milliseconds, most often by this very process: then the run waits here for this process to
 * give one of the endpoint's slots back, for a few times the endpoint's usual attempt duration (at
 * most `MAX_PATIENCE_MS`), and asks again; only then does it park. An endpoint that is slow, or not
 * yet seen, gets no patience: its deliveries park at once and hold no worker slot.
 */

/** Longest a run waits in process for a slot of a fast endpoint. */
export const MAX_PATIENCE_MS = 100;
/** An endpoint whose attempts usually take longer than this gets no patience. */
const FAST_MS = 50;
/** Weight of the newest attempt in an endpoint's usual duration. */
const WEIGHT = 0.2;
/** Endpoints remembered at most (the oldest are forgotten beyond it). */
const REMEMBERED = 10_000;

export interface SlotWaits {
  /** How long a run may wait in this process for a slot of `endpointId` before it parks (0: park now). */
  patience(endpointId: string): number;
  /** Records the duration of an attempt to `endpointId`. */
  observe(endpointId: string, durationMs: number): void;
  /** This process gave back a slot of `endpointId`: the longest waiter for it asks again. */
  released(endpointId: string): void;
  /** Waits for `released(endpointId)` or `ms`; answers whether a slot was given back. */
  wait(endpointId: string, ms: number): Promise<boolean>;
}

export function createSlotWaits(): SlotWaits {
  const usual = new Map<string, number>();
  const waiters = new Map<string, Array<(released: boolean) => void>>();
  return {
    patience(endpointId) {
      const typical = usual.get(endpointId);
      if (typical === undefined || typical > FAST_MS) return 0;
      return Math.min(MAX_PATIENCE_MS, Math.ceil(4 * typical) + 5);
    },
    observe(endpointId, durationMs) {
      const before = usual.get(endpointId);
      usual.delete(endpointId); // re-inserted last: the map's order is the order of use
      usual.set(endpointId, before === undefined ? durationMs : before + WEIGHT * (durationMs - before));
      if (usual.size > REMEMBERED) usual.delete(usual.keys().next().value as string);
    },
    released(endpointId) {
      const queue = waiters.get(endpointId);
      const next = queue?.shift();
      if (queue !== undefined && queue.length === 0) waiters.delete(endpointId);
      next?.(true);
    },
    wait(endpointId, ms) {
      return new Promise<boolean>((resolve) => {
        const queue = waiters.get(endpointId) ?? [];
        waiters.set(endpointId, queue);
        const done = (released: boolean) => {
          clearTimeout(timer);
          resolve(released);
        };
        const timer = setTimeout(() => {
          const at = queue.indexOf(done);
          if (at >= 0) queue.splice(at, 1);
          if (queue.length === 0 && waiters.get(endpointId) === queue) waiters.delete(endpointId);
          resolve(false);
        }, ms);
        queue.push(done);
      });
    },
  };
}

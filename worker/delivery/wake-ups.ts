/**
 * Wake-ups of this process's job queue at chosen times. graphile-worker hears of a job due now
 * through LISTEN/NOTIFY, but finds a job scheduled ahead only at its next poll
 * (`worker.pollInterval`, 2 s by default). A delivery sent back to wait for the start reserved for
 * it under its endpoint's `rateLimit` is such a job: found late, it would have to reserve again
 * at the back of the line. So the run that schedules it asks this process for a wake-up when its
 * job is due: one timer, armed for the earliest wake-up asked, nudges the runner's pool
 * (graphile-worker's `WorkerPool.nudge`), whose queue then fetches what is due at once. Nothing
 * polls: the timer fires only when a wake-up is due.
 */

export interface WakeUps {
  /** Have the queue fetch at `atMs` (ms since the epoch, this process's clock). */
  at(atMs: number): void;
  /** From now on, wake-ups nudge this pool (a runner's, when it starts; `count`: jobs due). */
  attach(nudge: (count: number) => void): void;
  /** Forgets every wake-up asked (the process stops). */
  stop(): void;
  /** Wake-ups asked and not yet due (tests, metrics). */
  pending(): number;
}

/** A binary min-heap of times. */
function createHeap() {
  const items: number[] = [];
  const swap = (a: number, b: number) => {
    const kept = items[a];
    items[a] = items[b];
    items[b] = kept;
  };
  return {
    size: () => items.length,
    peek: (): number | undefined => items[0],
    push(value: number) {
      items.push(value);
      let at = items.length - 1;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (items[parent] <= items[at]) break;
        swap(parent, at);
        at = parent;
      }
    },
    pop(): number | undefined {
      const top = items[0];
      const last = items.pop();
      if (items.length > 0 && last !== undefined) {
        items[0] = last;
        let at = 0;
        for (;;) {
          const left = 2 * at + 1;
          const right = left + 1;
          let least = at;
          if (left < items.length && items[left] < items[least]) least = left;
          if (right < items.length && items[right] < items[least]) least = right;
          if (least === at) break;
          swap(at, least);
          at = least;
        }
      }
      return top;
    },
    clear: () => void (items.length = 0),
  };
}

/** Wake-ups for one process; `now` is its clock (tests). */
export function createWakeUps(options: { now?: () => number } = {}): WakeUps {
  const now = options.now ?? Date.now;
  const heap = createHeap();
  let nudge: (count: number) => void = () => {};
  let timer: NodeJS.Timeout | undefined;
  let armedFor: number | undefined;

  const fire = () => {
    timer = undefined;
    armedFor = undefined;
    const at = now();
    let due = 0;
    // a timer may fire a little early by this clock (the event loop's time is read once per turn)
    while (heap.size() > 0 && (heap.peek() as number) <= at) {
      heap.pop();
      due += 1;
    }
    if (due > 0) nudge(due);
    arm();
  };

  const arm = () => {
    const next = heap.peek();
    if (next === undefined || (armedFor !== undefined && armedFor <= next)) return;
    if (timer !== undefined) clearTimeout(timer);
    armedFor = next;
    timer = setTimeout(fire, Math.max(0, next - now()));
    timer.unref();
  };

  return {
    at(atMs) {
      heap.push(atMs);
      arm();
    },
    attach(next) {
      nudge = next;
    },
    stop() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      armedFor = undefined;
      heap.clear();
    },
    pending: () => heap.size(),
  };
}

/**
 * How late this process has been running: a timer due every `intervalMs` adds up by how much each
 * turn came after it was due (the event loop busy, or the process waiting for a core). An
 * attempt's duration is timed by its worker and so includes these delays; subtracting what
 * accrued during the attempt leaves the receiver's own time, which is what says whether an
 * endpoint answers slowly (the endpoint cap's test).
 */
export interface Lateness {
  /** Milliseconds late so far, the turn now pending included. */
  total(): number;
  stop(): void;
}

export function watchLateness(intervalMs = 20): Lateness {
  let accrued = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    accrued += Math.max(0, now - last - intervalMs);
    last = now;
  }, intervalMs);
  timer.unref();
  return {
    total: () => accrued + Math.max(0, performance.now() - last - intervalMs),
    stop: () => clearInterval(timer),
  };
}

let shared: Lateness | undefined;

/** The process's one watch, started on first use (its timer does not keep the process alive). */
export function processLateness(): Lateness {
  shared ??= watchLateness();
  return shared;
}

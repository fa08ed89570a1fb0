/**
 * How late this process has been running: a timer due every `intervalMs` notes by how much each
 * turn came after it was due (the event loop busy, or the process waiting for a core). An
 * attempt's duration is timed by its worker and so may include such delays; taking them out
 * leaves the receiver's own time, which is what says whether an endpoint answers slowly (the
 * endpoint cap's test).
 *
 * Only a delay at either end of an attempt lengthens it: one before the request goes out, one
 * before the answer that has arrived is read. A process held up in the middle of an attempt (the
 * request sent, the answer not yet come) loses nothing of the receiver's time, since the network
 * goes on meanwhile. So an attempt is lengthened by at most twice its longest delay, and never by
 * more than the delays that fell within it (`attemptInflation`): a process slow all along (short
 * of cores for seconds) is not taken to have lost the whole attempt, which would make a slow
 * receiver look quick and lift its cap exactly when the workers are busiest.
 */
export interface Lateness {
  /** Milliseconds late so far, the turn now pending included. */
  total(): number;
  /** Now, to ask `inflationSince` at the end of an attempt. */
  mark(): LatenessMark;
  /** How much this process's own delays may have lengthened an attempt timed from `mark` to now. */
  inflationSince(mark: LatenessMark): number;
  stop(): void;
}

export interface LatenessMark {
  at: number;
  total: number;
}

/** Delays shorter than this are counted in `total` but not kept one by one (they cannot matter). */
const KEPT_DELAY_MS = 2;
/** How long delays are kept one by one (an attempt longer than this is judged on the ones kept). */
const KEPT_FOR_MS = 30_000;

/**
 * The most an attempt was lengthened by its process, given the delays that fell within it (in
 * all, and the longest): one delay at each end at most, and no more than all of them.
 */
export const attemptInflation = (delaysWithin: number, longestDelay: number): number =>
  Math.max(0, Math.min(delaysWithin, 2 * longestDelay));

export function watchLateness(intervalMs = 20): Lateness {
  let accrued = 0;
  let last = performance.now();
  // the delays of KEPT_DELAY_MS or more, oldest first: when each turn ran, and how late it was
  const delays: { at: number; ms: number }[] = [];
  const timer = setInterval(() => {
    const now = performance.now();
    const late = Math.max(0, now - last - intervalMs);
    accrued += late;
    last = now;
    if (late >= KEPT_DELAY_MS) delays.push({ at: now, ms: late });
    while (delays.length > 0 && delays[0].at < now - KEPT_FOR_MS) delays.shift();
  }, intervalMs);
  timer.unref();
  const pending = () => Math.max(0, performance.now() - last - intervalMs);
  const total = () => accrued + pending();
  return {
    total,
    mark: () => ({ at: performance.now(), total: total() }),
    inflationSince(mark) {
      let longest = pending();
      for (let i = delays.length - 1; i >= 0 && delays[i].at > mark.at; i--) longest = Math.max(longest, delays[i].ms);
      return attemptInflation(total() - mark.total, longest);
    },
    stop: () => clearInterval(timer),
  };
}

let shared: Lateness | undefined;

/** The process's one watch, started on first use (its timer does not keep the process alive). */
export function processLateness(): Lateness {
  shared ??= watchLateness();
  return shared;
}

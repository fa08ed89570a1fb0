import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { watchLateness } from '../../../worker/delivery/lateness.ts';

/** Holds the event loop for `ms` without yielding, as a long synchronous task would. */
function holdLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy: no timer can run meanwhile
  }
}

describe('watchLateness', () => {
  it('counts a turn of the event loop held up as lateness, the pending turn included', async () => {
    const lateness = watchLateness(10);
    try {
      await sleep(30); // the timer has run
      const before = lateness.total();
      holdLoop(300);
      assert.ok(lateness.total() - before >= 280, 'read right after the hold: the pending turn counts');
      await sleep(30); // the late turn runs and keeps what it found
      assert.ok(lateness.total() - before >= 280, 'after the late turn ran: still counted');
    } finally {
      lateness.stop();
    }
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { attemptInflation, watchLateness } from '../../../worker/delivery/lateness.ts';

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

  it('an attempt held up once, at an end, is taken to have lost that hold', async () => {
    const lateness = watchLateness(10);
    try {
      await sleep(30);
      const mark = lateness.mark();
      holdLoop(300); // as if the answer had arrived and waited to be read
      assert.ok(lateness.inflationSince(mark) >= 280);
    } finally {
      lateness.stop();
    }
  });
});

describe('attemptInflation', () => {
  it('at most twice the longest delay (one before the request goes out, one before the answer is read)', () => {
    // a process short of cores all along: 30 delays of 20 ms within a 600 ms attempt
    assert.equal(attemptInflation(600, 20), 40);
  });

  it('never more than the delays within the attempt', () => {
    assert.equal(attemptInflation(300, 300), 300, 'one long hold: all of it');
    assert.equal(attemptInflation(0, 0), 0);
  });
});

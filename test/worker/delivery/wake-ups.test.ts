/**
 * The process's wake-ups of its job queue (worker/delivery/wake-ups.ts): each time asked nudges
 * the attached pool once it is due, never before, with one timer for the earliest.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createWakeUps } from '../../../worker/delivery/wake-ups.ts';

/** Nudges as they come: when, and how many wake-ups each carried. */
function recorder() {
  const nudges: Array<{ at: number; count: number }> = [];
  let waiting: { total: number; resolve: () => void } | undefined;
  const seen = () => nudges.reduce((sum, nudge) => sum + nudge.count, 0);
  return {
    nudges,
    nudge(count: number) {
      nudges.push({ at: Date.now(), count });
      if (waiting !== undefined && seen() >= waiting.total) waiting.resolve();
    },
    /** Resolves once `total` wake-ups were nudged; rejects after `timeoutMs`. */
    until(total: number, timeoutMs = 2_000): Promise<void> {
      if (seen() >= total) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`only ${seen()} of ${total} wake-ups after ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiting = {
          total,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
      });
    },
  };
}

describe('wake-ups', () => {
  it('nudges at each time asked, in time order whatever the order asked, never early', async () => {
    const wakeUps = createWakeUps();
    const seen = recorder();
    wakeUps.attach(seen.nudge);
    const start = Date.now();
    const times = [120, 40, 80, 40].map((ms) => start + ms);
    for (const at of times) wakeUps.at(at);
    assert.equal(wakeUps.pending(), 4);
    await seen.until(4);
    assert.equal(wakeUps.pending(), 0);
    const expected = [...new Set(times)].sort((a, b) => a - b);
    assert.ok(
      seen.nudges.length <= expected.length,
      `one nudge per distinct time at most: ${JSON.stringify(seen.nudges)}`,
    );
    // every wake-up is nudged at or after its time
    let covered = 0;
    for (const nudge of seen.nudges) {
      covered += nudge.count;
      const dueBy = [...times].sort((a, b) => a - b).slice(0, covered);
      assert.ok(
        dueBy.every((at) => at <= nudge.at),
        `nudge at +${nudge.at - start} ms carried a wake-up not yet due`,
      );
    }
    wakeUps.stop();
  });

  it('a time already past nudges at once; stop forgets what is pending', async () => {
    const wakeUps = createWakeUps();
    const seen = recorder();
    wakeUps.attach(seen.nudge);
    wakeUps.at(Date.now() - 1_000);
    await seen.until(1);
    wakeUps.at(Date.now() + 60_000);
    assert.equal(wakeUps.pending(), 1);
    wakeUps.stop();
    assert.equal(wakeUps.pending(), 0);
  });

  it('nudges the pool attached last (a runner started again)', async () => {
    const wakeUps = createWakeUps();
    const first = recorder();
    const second = recorder();
    wakeUps.attach(first.nudge);
    wakeUps.at(Date.now() + 30);
    wakeUps.attach(second.nudge);
    await second.until(1);
    assert.equal(first.nudges.length, 0);
    wakeUps.stop();
  });
});

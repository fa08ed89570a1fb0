import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../shared/errors/app-error.ts';
import { DEFAULT_BACKOFF, DEFAULT_MAX_ATTEMPTS, retryDelayMs } from '../../../worker/delivery/backoff.ts';

const SECOND = 1000;
const HOUR = 3600 * SECOND;
const middle = () => 0.5; // no jitter
const lowest = () => 0; // -jitter
const highest = () => 0.999999999; // almost +jitter

describe('retryDelayMs', () => {
  it('keeps the defaults: base 10 s, factor 3, max 6 h, jitter 0.2, 8 attempts', () => {
    assert.deepEqual({ ...DEFAULT_BACKOFF }, { base: 10 * SECOND, factor: 3, max: 6 * HOUR, jitter: 0.2 });
    assert.equal(DEFAULT_MAX_ATTEMPTS, 8);
  });

  it('grows from base by factor per failed attempt without jitter', () => {
    const delays = [1, 2, 3, 4, 5, 6, 7].map((attempt) => retryDelayMs(attempt, DEFAULT_BACKOFF, middle));
    assert.deepEqual(
      delays,
      [10, 30, 90, 270, 810, 2430, 7290].map((s) => s * SECOND),
    );
  });

  it('caps the delay at max', () => {
    assert.equal(retryDelayMs(9, DEFAULT_BACKOFF, middle), 6 * HOUR); // 10 s * 3^8 = 18.2 h
    assert.equal(retryDelayMs(200, DEFAULT_BACKOFF, middle), 6 * HOUR); // 3^199 overflows to Infinity
  });

  it('jitters uniformly within ±jitter of the delay', () => {
    assert.equal(retryDelayMs(2, DEFAULT_BACKOFF, lowest), 24 * SECOND);
    assert.equal(retryDelayMs(2, DEFAULT_BACKOFF, highest), 36 * SECOND);
    for (let i = 0; i < 1000; i += 1) {
      const delay = retryDelayMs(3, DEFAULT_BACKOFF);
      assert.ok(delay >= 72 * SECOND && delay <= 108 * SECOND, String(delay));
    }
  });

  it('never exceeds max after jitter: at the cap the jitter only shortens', () => {
    assert.equal(retryDelayMs(12, DEFAULT_BACKOFF, highest), 6 * HOUR);
    assert.equal(retryDelayMs(12, DEFAULT_BACKOFF, lowest), 4.8 * HOUR);
  });

  it('is never negative, even with a jitter above 1', () => {
    assert.equal(retryDelayMs(1, { ...DEFAULT_BACKOFF, jitter: 1.5 }, lowest), 0);
  });

  it('answers whole milliseconds', () => {
    for (let i = 0; i < 100; i += 1) assert.ok(Number.isInteger(retryDelayMs(4, DEFAULT_BACKOFF)));
  });

  for (const attempt of [0, -1, 1.5, Number.NaN]) {
    it(`refuses attempt number ${attempt} (attempts are 1-based integers)`, () => {
      assert.throws(
        () => retryDelayMs(attempt, DEFAULT_BACKOFF),
        (error: unknown) => {
          assert.ok(error instanceof AppError);
          assert.equal(error.code, 'APP_WEBHOOK_BACKOFF_INVALID');
          return true;
        },
      );
    });
  }

  // "About three days in total" is sometimes said of these defaults. With 8 attempts there are 7
  // waits, and 10 s * 3^k for k = 0..6 stays below the 6 h cap: the total is 10 930 s, about
  // 3 hours. This test pins the arithmetic of the configured values.
  it('spreads the 8 default attempts over 10 930 s (about 3 h) without jitter, ±20 % with it', () => {
    const waits = Array.from({ length: DEFAULT_MAX_ATTEMPTS - 1 }, (_, i) => i + 1);
    const total = (random: () => number) =>
      waits.reduce((sum, attempt) => sum + retryDelayMs(attempt, DEFAULT_BACKOFF, random), 0);
    assert.equal(total(middle), 10_930 * SECOND);
    assert.equal(total(lowest), 8_744 * SECOND);
    assert.ok(total(highest) <= 13_116 * SECOND);
  });
});

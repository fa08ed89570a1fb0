/**
 * HAL answers write their dates before serialising (api/hal/json-time.ts): the text must be
 * what JSON.stringify writes of the date itself, for every date a record may hold.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { jsonTime } from '../../../api/hal/json-time.ts';

const asJson = (date: Date) => JSON.parse(JSON.stringify({ at: date })).at as string | null;

describe('jsonTime', () => {
  it('writes what JSON.stringify writes, for any date JavaScript can hold', () => {
    fc.assert(
      fc.property(fc.integer({ min: -8_640_000_000_000_000, max: 8_640_000_000_000_000 }), (time) => {
        const date = new Date(time);
        assert.equal(jsonTime(date), asJson(date));
      }),
      { numRuns: 5000 },
    );
  });

  it('at the edges: years 0, 999, 1000, 9999, 10000 and before 0, milliseconds 0 and 999, an invalid date, a date with its own toJSON', () => {
    const dates = [
      '0000-01-01T00:00:00.000Z',
      '0999-12-31T23:59:59.999Z',
      '1000-01-01T00:00:00.000Z',
      '1970-01-01T00:00:00.000Z',
      '2026-02-28T09:05:03.007Z',
      '9999-12-31T23:59:59.999Z',
      '+010000-01-01T00:00:00.000Z',
      '-000001-12-31T23:59:59.999Z',
    ].map((text) => new Date(text));
    for (const date of dates) assert.equal(jsonTime(date), asJson(date), date.toISOString());
    assert.equal(jsonTime(new Date(Number.NaN)), null);
    const own = Object.assign(new Date(0), { toJSON: () => 'the epoch' });
    assert.equal(jsonTime(own), 'the epoch');
  });
});

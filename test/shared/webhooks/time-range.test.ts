import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../../shared/errors/app-error.ts';
import { parseTime, parseTimeRange, readIsoDateTime } from '../../../shared/webhooks/time-range.ts';

describe('time-range bounds: ISO 8601 text naming a moment that exists', () => {
  it('reads dates and date-times, with seconds, fractions and offsets optional', () => {
    assert.equal(readIsoDateTime('2026-01-31')?.toISOString(), '2026-01-31T00:00:00.000Z');
    assert.equal(readIsoDateTime('2026-02-28T23:59:59.5Z')?.toISOString(), '2026-02-28T23:59:59.500Z');
    assert.equal(readIsoDateTime('2028-02-29T12:00+02:00')?.toISOString(), '2028-02-29T10:00:00.000Z');
    assert.equal(readIsoDateTime(' 2026-12-31 08:30:00Z ')?.toISOString(), '2026-12-31T08:30:00.000Z');
  });

  it('refuses a day, month, hour, minute or second that does not exist, rather than rolling it over', () => {
    for (const text of [
      '2026-02-29',
      '2026-02-30T00:00:00Z',
      '2026-11-31T00:00:00Z',
      '2026-13-01',
      '2026-00-10',
      '2026-01-00',
      '2026-01-01T24:00:00Z',
      '2026-01-01T12:60:00Z',
      '2026-01-01T12:00:60Z',
      '2026-01-01T12:00:00+24:00',
      'yesterday',
    ]) {
      assert.equal(readIsoDateTime(text), undefined, text);
      assert.throws(
        () => parseTime('since', text),
        (error: unknown) => error instanceof AppError && error.code === 'APP_WEBHOOK_TIME_RANGE_INVALID',
        text,
      );
    }
  });

  it('a range still needs until after since', () => {
    assert.throws(
      () => parseTimeRange({ since: '2026-01-02', until: '2026-01-01' }),
      (error: unknown) => error instanceof AppError && error.code === 'APP_WEBHOOK_TIME_RANGE_INVALID',
    );
  });
});

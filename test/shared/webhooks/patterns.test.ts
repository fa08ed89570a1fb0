import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../shared/errors/app-error.ts';
import {
  assertEventName,
  assertEventPatterns,
  MAX_EVENT_PATTERNS,
  matchesEvent,
  validateEventName,
  validateEventPattern,
} from '../../../shared/webhooks/patterns.ts';

const VALID_NAMES = ['order', 'order.created', 'order.line_item.updated', 'A-1.b_2.C3', 'x'.repeat(255)];
const INVALID_NAMES = [
  '',
  '*',
  'a*',
  'a.*',
  '*.b',
  'a..b',
  '.a',
  'a.',
  ' a',
  'a ',
  'a b',
  'a/b',
  'ordér',
  'x'.repeat(256),
];

const VALID_PATTERNS = ['*', 'order', 'order.created', 'order.*', 'order.line_item.*', 'A-1.b_2.*'];
const INVALID_PATTERNS = [
  '',
  'a*',
  '*.b',
  'a.*.c',
  'a..b',
  '.a',
  'a.',
  ' a',
  'a.**',
  '**',
  '.*',
  '*.*',
  'a.b*',
  'a .*',
  'x'.repeat(256),
];

describe('validateEventName', () => {
  for (const name of VALID_NAMES) {
    it(`accepts the event name ${JSON.stringify(name.length > 20 ? `${name.slice(0, 8)}…(${name.length})` : name)}`, () => {
      assert.equal(validateEventName(name), null);
    });
  }
  for (const name of INVALID_NAMES) {
    it(`refuses the event name ${JSON.stringify(name.length > 20 ? `${name.slice(0, 8)}…(${name.length})` : name)}`, () => {
      assert.equal(typeof validateEventName(name), 'string');
    });
  }
});

describe('validateEventPattern', () => {
  for (const pattern of VALID_PATTERNS) {
    it(`accepts the pattern ${JSON.stringify(pattern)}`, () => {
      assert.equal(validateEventPattern(pattern), null);
    });
  }
  for (const pattern of INVALID_PATTERNS) {
    it(`refuses the pattern ${JSON.stringify(pattern.length > 20 ? `${pattern.slice(0, 8)}…(${pattern.length})` : pattern)}`, () => {
      const reason = validateEventPattern(pattern);
      assert.equal(typeof reason, 'string');
      assert.ok((reason as string).length > 0);
    });
  }
});

describe('assertEventPatterns', () => {
  it('answers the valid patterns', () => {
    assert.deepEqual(assertEventPatterns(['order.*', 'user.created', '*']), ['order.*', 'user.created', '*']);
  });

  it('drops duplicates, keeping the first occurrence order', () => {
    assert.deepEqual(assertEventPatterns(['b', 'a.*', 'b', 'a.*', 'c']), ['b', 'a.*', 'c']);
  });

  it('takes at most MAX_EVENT_PATTERNS distinct patterns: every emit matches against each of them', () => {
    const names = (count: number) => Array.from({ length: count }, (_, i) => `order.n${i}`);
    assert.equal(assertEventPatterns(names(MAX_EVENT_PATTERNS)).length, MAX_EVENT_PATTERNS);
    // duplicates do not count
    assert.equal(assertEventPatterns([...names(MAX_EVENT_PATTERNS), ...names(10)]).length, MAX_EVENT_PATTERNS);
    assert.throws(
      () => assertEventPatterns(names(MAX_EVENT_PATTERNS + 1)),
      (error: unknown) => {
        assert.ok(error instanceof AppError);
        assert.equal(error.status, 422);
        assert.equal(error.code, 'APP_WEBHOOK_EVENTS_INVALID');
        assert.deepEqual(
          { value: error.data?.value, limit: error.data?.limit },
          { value: MAX_EVENT_PATTERNS + 1, limit: MAX_EVENT_PATTERNS },
        );
        assert.match(error.message, /at most 256 patterns, got 257/);
        return true;
      },
    );
  });

  const refusals: Array<{ rule: string; input: unknown; value: unknown }> = [
    { rule: 'refuses a value that is not an array', input: 'order.*', value: 'order.*' },
    { rule: 'refuses undefined', input: undefined, value: undefined },
    { rule: 'refuses an empty array', input: [], value: [] },
    { rule: 'refuses a non-string entry, naming it', input: ['a', 42], value: 42 },
    { rule: 'refuses an invalid pattern, naming it', input: ['a', 'a.*.c'], value: 'a.*.c' },
  ];
  for (const { rule, input, value } of refusals) {
    it(`${rule} with 422 APP_WEBHOOK_EVENTS_INVALID`, () => {
      assert.throws(
        () => assertEventPatterns(input),
        (error: unknown) => {
          assert.ok(error instanceof AppError);
          assert.equal(error.status, 422);
          assert.equal(error.code, 'APP_WEBHOOK_EVENTS_INVALID');
          assert.equal(error.data?.field, 'events');
          assert.deepEqual(error.data?.value, value);
          assert.equal(typeof error.data?.reason, 'string');
          return true;
        },
      );
    });
  }
});

describe('assertEventName', () => {
  it('answers a valid event name', () => {
    assert.equal(assertEventName('order.created'), 'order.created');
  });

  for (const name of ['*', 'order.*', '', 'a..b', 7, null]) {
    it(`refuses ${JSON.stringify(name)} with 422 APP_WEBHOOK_EVENT_INVALID on field type`, () => {
      assert.throws(
        () => assertEventName(name),
        (error: unknown) => {
          assert.ok(error instanceof AppError);
          assert.equal(error.status, 422);
          assert.equal(error.code, 'APP_WEBHOOK_EVENT_INVALID');
          assert.equal(error.data?.field, 'type');
          assert.equal(error.data?.value, name);
          assert.equal(typeof error.data?.reason, 'string');
          return true;
        },
      );
    });
  }
});

describe('matchesEvent', () => {
  const table: Array<[patterns: string[], event: string, expected: boolean]> = [
    [['order.created'], 'order.created', true],
    [['order.created'], 'order.updated', false],
    [['order.created'], 'order.created.late', false],
    [['Order.created'], 'order.created', false],
    [['*'], 'order.created', true],
    [['*'], 'x', true],
    [['a.*'], 'a.b', true],
    [['a.*'], 'a.b.c', true],
    [['a.*'], 'a', false],
    [['a.*'], 'a.', false],
    [['a.*'], 'ab.c', false],
    [['a.*'], 'b.a.c', false],
    [['a.b.*'], 'a.b.c.d', true],
    [['a.b.*'], 'a.b', false],
    [['a.b.*'], 'a.c.d', false],
    [['x', 'a.*'], 'a.b', true],
    [['x', 'y.*'], 'a.b', false],
    [[], 'a.b', false],
  ];
  for (const [patterns, event, expected] of table) {
    it(`${expected ? 'matches' : 'does not match'} ${JSON.stringify(event)} against ${JSON.stringify(patterns)}`, () => {
      assert.equal(matchesEvent(patterns, event), expected);
    });
  }
});

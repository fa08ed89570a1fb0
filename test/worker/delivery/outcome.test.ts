import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  OUTCOME_RULES,
  classifyAttempt,
  outcomeRuleFor,
  type AttemptOutcome,
} from '../../../worker/delivery/outcome.ts';
import type { AttemptResult } from '../../../worker/delivery/post.ts';

const answer = (status: number, extra: { location?: string } = {}): AttemptResult => ({
  kind: 'response',
  status,
  excerpt: 'ok',
  durationMs: 12,
  ...extra,
});

interface Case {
  name: string;
  attempts: AttemptResult[];
  expected: Omit<AttemptOutcome, 'error'>;
  /** Text the kept error must contain (undefined: no error kept). */
  errorIncludes?: string[];
}

// The outcome table (what each answer of the receiver does: docs/receiving.md), row by row.
const TABLE_CASES: Case[] = [
  {
    name: 'a 2xx answer is delivered (done)',
    attempts: [200, 201, 202, 204, 299].map((s) => answer(s)),
    expected: { result: 'done', disableEndpoint: false },
  },
  {
    name: 'a 3xx answer is dead without retry and the error names the Location',
    attempts: [301, 302, 307, 308].map((s) => answer(s, { location: 'https://elsewhere.example.com/in' })),
    expected: { result: 'dead', disableEndpoint: false },
    errorIncludes: ['https://elsewhere.example.com/in', 'not followed'],
  },
  {
    name: 'a 3xx answer without Location is dead too',
    attempts: [answer(303)],
    expected: { result: 'dead', disableEndpoint: false },
    errorIncludes: ['no Location header'],
  },
  {
    name: '410 is dead without retry and disables the endpoint',
    attempts: [answer(410)],
    expected: { result: 'dead', disableEndpoint: true },
    errorIncludes: ['410'],
  },
  {
    name: 'any other 4xx is retried, 429 included (Retry-After is ignored)',
    attempts: [400, 401, 403, 404, 409, 413, 422, 429, 499].map((s) => answer(s)),
    expected: { result: 'retry', disableEndpoint: false },
    errorIncludes: ['receiver answered 4'],
  },
  {
    name: 'a 5xx answer is retried',
    attempts: [500, 502, 503, 504, 599].map((s) => answer(s)),
    expected: { result: 'retry', disableEndpoint: false },
    errorIncludes: ['receiver answered 5'],
  },
  {
    name: 'a status outside 2xx-5xx is retried',
    attempts: [answer(199), answer(600)],
    expected: { result: 'retry', disableEndpoint: false },
    errorIncludes: ['not a status'],
  },
  {
    name: 'no complete answer within the timeout is retried',
    attempts: [{ kind: 'timeout', durationMs: 10_000, error: 'no complete answer within 10000 ms' }],
    expected: { result: 'retry', disableEndpoint: false },
    errorIncludes: ['timeout', '10000 ms'],
  },
  {
    name: 'a connection error is retried',
    attempts: [{ kind: 'connection-error', durationMs: 3, error: 'ECONNREFUSED: connect ECONNREFUSED' }],
    expected: { result: 'retry', disableEndpoint: false },
    errorIncludes: ['ECONNREFUSED'],
  },
  {
    name: 'a refused address is dead at once and the error carries the address',
    attempts: [
      {
        kind: 'address-refused',
        address: '10.0.0.7',
        rule: 'private, RFC 1918 (10.0.0.0/8)',
        error: 'x',
        durationMs: 1,
      },
    ],
    expected: { result: 'dead', disableEndpoint: false },
    errorIncludes: ['10.0.0.7', '10.0.0.0/8'],
  },
  {
    name: "a broker's acknowledgement is done",
    attempts: [{ kind: 'acknowledged', detail: 'stream WEBHOOKS seq 7', durationMs: 2 }],
    expected: { result: 'done', disableEndpoint: false },
  },
  {
    name: "a broker's refusal is retried and the error carries its reason",
    attempts: [{ kind: 'rejected', error: 'NOT_FOUND - no exchange orders', durationMs: 2 }],
    expected: { result: 'retry', disableEndpoint: false },
    errorIncludes: ['broker refused', 'no exchange orders'],
  },
  {
    name: 'an invalid url is dead at once',
    attempts: [{ kind: 'invalid-url', error: 'webhook url is not acceptable: missing host' }],
    expected: { result: 'dead', disableEndpoint: false },
    errorIncludes: ['missing host'],
  },
];

describe('classifyAttempt', () => {
  for (const c of TABLE_CASES) {
    it(c.name, () => {
      for (const attempt of c.attempts) {
        const outcome = classifyAttempt(attempt);
        assert.equal(outcome.result, c.expected.result, JSON.stringify(attempt));
        assert.equal(outcome.disableEndpoint, c.expected.disableEndpoint, JSON.stringify(attempt));
        if (c.errorIncludes === undefined) {
          assert.equal(outcome.error, undefined);
        } else {
          assert.equal(typeof outcome.error, 'string');
          for (const text of c.errorIncludes)
            assert.ok(outcome.error!.includes(text), `${outcome.error} lacks ${text}`);
        }
      }
    });
  }
});

describe('OUTCOME_RULES', () => {
  for (const rule of OUTCOME_RULES) {
    it(`decides at least one of the table's cases: ${rule.trigger}`, () => {
      const decided = TABLE_CASES.flatMap((c) => c.attempts).filter((attempt) => outcomeRuleFor(attempt) === rule);
      assert.ok(decided.length > 0);
      for (const attempt of decided) assert.equal(classifyAttempt(attempt).result, rule.result);
    });
  }

  it('keeps an error for every failure and none for success', () => {
    for (const rule of OUTCOME_RULES) assert.equal(rule.error === undefined, rule.result === 'done', rule.trigger);
  });
});

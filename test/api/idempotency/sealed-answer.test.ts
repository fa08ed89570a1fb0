/**
 * Stored idempotent answers across a rotation of the application secret: an answer sealed under
 * a secret listed in `previousSecrets` still replays; one under a secret no longer configured is
 * refused with 409 `APP_API_IDEMPOTENCY_ANSWER_UNREADABLE`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answerSeal } from '../../../api/idempotency/sealed-answer.ts';
import type { StoredAnswer } from '../../../api/idempotency/answer.ts';

const OLD = 'the application secret before the rotation, 40 chars';
const NEW = 'the application secret after the rotation, long enough';
const ANSWER: StoredAnswer = {
  status: 201,
  headers: { 'content-type': 'application/json' },
  body: { kind: 'json', text: '{"secret":"whsec_AAAA"}' },
};

describe('answerSeal', () => {
  const before = answerSeal({ secret: OLD, previousSecrets: [] });

  it('opens an answer sealed under a previous secret, and seals under the current one', () => {
    const after = answerSeal({ secret: NEW, previousSecrets: [OLD] });
    assert.deepEqual(after.open(before.seal(ANSWER)), ANSWER);
    assert.throws(() => before.open(after.seal(ANSWER)), { code: 'APP_API_IDEMPOTENCY_ANSWER_UNREADABLE' });
  });

  it('refuses an answer sealed under a secret that is no longer configured with 409 APP_API_IDEMPOTENCY_ANSWER_UNREADABLE', () => {
    const after = answerSeal({ secret: NEW, previousSecrets: [] });
    assert.throws(() => after.open(before.seal(ANSWER)), {
      status: 409,
      code: 'APP_API_IDEMPOTENCY_ANSWER_UNREADABLE',
    });
  });
});

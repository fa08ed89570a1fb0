import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileShape } from '../../../../api/model-framework/data/shape.ts';
import { DATE, defineModel } from '../../../../api/model-framework/data/types.ts';
import { checkInput } from '../../../../api/model-framework/data/values.ts';

const { shape } = compileShape(defineModel({ name: 'Meeting', schema: { at: { type: DATE } } }));

/** The problem checkInput reports for `at`, or the value it keeps. */
function read(at: unknown): unknown {
  try {
    return checkInput(shape, { at }, 'create').at;
  } catch (error) {
    const { data } = error as { code: string; data: { errors: Array<{ field: string; message: string }> } };
    return data.errors.find((problem) => problem.field === 'at')?.message;
  }
}

describe('field values', () => {
  it('a DATE naming a day its month does not have is refused, not moved to the next month', () => {
    for (const text of ['2026-02-30', '2026-02-29T10:00:00Z', '2026-04-31', '2026-06-31 12:00']) {
      assert.equal(read(text), 'must be an ISO 8601 date-time', text);
    }
  });

  it('a DATE on a day that exists is kept as that instant, leap days included', () => {
    assert.equal((read('2028-02-29') as Date).toISOString(), '2028-02-29T00:00:00.000Z');
    assert.equal((read('2026-01-31T23:59:59+01:00') as Date).toISOString(), '2026-01-31T22:59:59.000Z');
    assert.equal((read('2026-12-31T00:00Z') as Date).toISOString(), '2026-12-31T00:00:00.000Z');
  });
});

describe('a model input that is not an object of fields', () => {
  it('is 400 APP_BODY_INVALID on create and update, naming what was given', () => {
    for (const input of [[], [{ at: '2026-01-01' }], 'at', 3, null]) {
      for (const mode of ['create', 'update'] as const) {
        assert.throws(
          () => checkInput(shape, input as never, mode),
          (error: { status: number; code: string; message: string }) => {
            assert.equal(error.status, 400, JSON.stringify(input));
            assert.equal(error.code, 'APP_BODY_INVALID');
            assert.match(
              error.message,
              /^Meeting input must be an object of fields, not (an array|string|number|null)$/,
            );
            return true;
          },
        );
      }
    }
  });
});

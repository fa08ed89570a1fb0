import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileShape } from '../../../../api/model-framework/data/shape.ts';
import { DATE, defineModel, INTEGER, NUMBER, STRING } from '../../../../api/model-framework/data/types.ts';
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

describe('INTEGER and NUMBER ranges', () => {
  const { shape: counted } = compileShape(
    defineModel({
      name: 'Counter',
      schema: {
        small: { type: INTEGER },
        big: { type: INTEGER, min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER },
        score: { type: NUMBER, min: 0, max: 5 },
      },
    }),
  );
  const problems = (input: Record<string, unknown>) => {
    try {
      checkInput(counted, input, 'update');
      return [];
    } catch (error) {
      return (error as { data: { errors: Array<{ field: string; message: string }> } }).data.errors;
    }
  };

  it('an INTEGER field holds what an integer column holds unless it declares another range', () => {
    assert.deepEqual(problems({ small: 2_147_483_647, big: 3_000_000_000 }), []);
    assert.deepEqual(problems({ small: 2_147_483_648 }), [
      { field: 'small', message: 'must be between -2147483648 and 2147483647' },
    ]);
    assert.deepEqual(problems({ small: '-2147483649' }), [
      { field: 'small', message: 'must be between -2147483648 and 2147483647' },
    ]);
  });

  it('a NUMBER field is checked against its declared min and max', () => {
    assert.deepEqual(problems({ score: 4.5 }), []);
    assert.deepEqual(problems({ score: 5.5 }), [{ field: 'score', message: 'must be between 0 and 5' }]);
  });

  it('a declaration whose range is not numbers of the field type, or is upside down, is refused', () => {
    const problemsOf = (schema: Record<string, unknown>) =>
      compileShape(defineModel({ name: 'Bad', schema: schema as never })).problems;
    assert.match(problemsOf({ name: { type: STRING, min: 1 } }).join(), /only INTEGER and NUMBER fields take `min`/);
    assert.match(problemsOf({ n: { type: INTEGER, max: 1.5 } }).join(), /`max` must be a whole number/);
    assert.match(problemsOf({ n: { type: NUMBER, min: 2, max: 1 } }).join(), /`min` \(2\) is above `max` \(1\)/);
    assert.deepEqual(problemsOf({ n: { type: INTEGER, min: 0 } }), []);
  });
});

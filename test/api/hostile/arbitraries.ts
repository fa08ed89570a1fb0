/**
 * The hostile values the fuzz tests draw from (fast-check): strings a hostile client would try,
 * numbers past what a column or a double holds, and JSON values nesting them, with object keys
 * that name what every object inherits (`toString`, `__proto__`…).
 */
import fc from 'fast-check';

/** A fixed seed keeps the suite repeatable; FUZZ_SEED and FUZZ_RUNS explore further by hand. */
export const fuzzSettings = (seed: number, runs: number) => ({
  seed: Number(process.env.FUZZ_SEED ?? seed),
  numRuns: Number(process.env.FUZZ_RUNS ?? runs),
  verbose: true,
});

/** Strings a hostile client would try: NUL, control characters, lone surrogates, long ones. */
export const nasty = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\udfff',
    '\u0007',
    '%00',
    '../../etc',
    'ep_' + 'Z'.repeat(26),
    'msg_',
    '*',
    'a.*',
  ),
  fc.string({ minLength: 1000, maxLength: 5000 }),
);

/** Numbers past an `integer` column (2^31), past a safe integer (2^53), past a `bigint`, and odd doubles. */
export const hugeNumber = fc.constantFrom(
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 53 + 2,
  -(2 ** 53) - 2,
  2 ** 64,
  1e308,
  -0,
  5e-324,
  0.5,
);

/** Object keys: arbitrary ones, and the names of what every JavaScript object inherits. */
const key = fc.oneof(nasty, fc.constantFrom('toString', 'valueOf', '__proto__', 'constructor', 'hasOwnProperty'));

/** Any JSON value, with hostile strings, numbers and keys at every level. */
export const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  any: fc.oneof(
    { depthSize: 'small' },
    nasty,
    fc.integer(),
    fc.double(),
    hugeNumber,
    fc.boolean(),
    fc.constant(null),
    fc.bigInt().map(String),
    fc.array(tie('any'), { maxLength: 4 }),
    fc.dictionary(key, tie('any'), { maxKeys: 4 }),
    // an object that shadows what reading it as text calls
    fc.record({ toString: tie('any'), valueOf: tie('any') }, { requiredKeys: [] }),
  ),
})).any;

/** An object of `fields`, each absent or a hostile value (a field's name chosen by the caller). */
export const fieldsOf = (fields: readonly string[], extra: Record<string, fc.Arbitrary<unknown>> = {}) =>
  fc.record({ ...Object.fromEntries(fields.map((name) => [name, value])), ...extra }, { requiredKeys: [] });

/**
 * A query string or form body (`a=1&a=2&b[c]=3`) of up to `maxLength` pairs, names and values
 * drawn from `name` and `given`, each percent-encoded as UTF-8 (a lone surrogate as U+FFFD, as a
 * client's would be); a name may repeat.
 */
export const encodedPairs = (name: fc.Arbitrary<string>, given: fc.Arbitrary<string>, maxLength: number) =>
  fc
    .array(fc.tuple(name, given), { maxLength })
    .map((pairs) =>
      pairs
        .map(([key, text]) => `${encodeURIComponent(key.toWellFormed())}=${encodeURIComponent(text.toWellFormed())}`)
        .join('&'),
    );

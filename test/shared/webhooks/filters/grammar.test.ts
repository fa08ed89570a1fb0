/**
 * The filter grammar (shared/webhooks/filters/grammar.ts) as a table: each case is a filter, an
 * event and the answer it must give (and, for a miss, the condition named). Then the refusals at
 * save, each with the path and the reason it must name, and the hostile filters.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isAppError } from '../../../../shared/errors/app-error.ts';
import {
  assertFilter,
  compareCodePoints,
  compileFilter,
  compileStoredFilter,
  FILTER_LIMITS,
  type FilterEvent,
} from '../../../../shared/webhooks/filters/grammar.ts';

const event = (data: unknown, type = 'order.created'): FilterEvent => ({
  type,
  timestamp: '2031-03-04T05:06:07.089Z',
  data,
});

const ORDER = event({
  id: 42,
  amount: 99.5,
  currency: 'EUR',
  paid: true,
  note: null,
  customer: { country: 'FR', name: 'Zoë', tier: 'gold', address: { city: 'Paris' } },
  tags: ['vip', 'b2b'],
  items: [
    { sku: 'A-1', qty: 2 },
    { sku: 'B-2', qty: 1, gift: true },
  ],
  matrix: [
    [1, 2],
    [3, 4],
  ],
  code: '5',
  count: 5,
  名前: '注文',
  emoji: '😀',
});

interface Case {
  name: string;
  filter: Record<string, unknown>;
  event?: FilterEvent;
  /** true: matches; a string: misses at this `at`, with `operator` after the last `@`. */
  expect: true | { at: string; operator: string; path: string | null };
}

const miss = (at: string, operator: string, path: string | null) => ({ at, operator, path });

const CASES: Case[] = [
  // equality
  { name: 'plain value equal', filter: { 'data.currency': 'EUR' }, expect: true },
  {
    name: 'plain value different',
    filter: { 'data.currency': 'USD' },
    expect: miss('data.currency', '$eq', 'data.currency'),
  },
  { name: 'type', filter: { type: 'order.created' }, expect: true },
  { name: 'timestamp as a string', filter: { timestamp: { $gte: '2031-01-01' } }, expect: true },
  { name: 'nested path', filter: { 'data.customer.address.city': 'Paris' }, expect: true },
  { name: '$eq explicit', filter: { 'data.id': { $eq: 42 } }, expect: true },
  { name: '$eq boolean', filter: { 'data.paid': true }, expect: true },
  { name: 'array contains the value', filter: { 'data.tags': 'vip' }, expect: true },
  { name: 'array does not contain', filter: { 'data.tags': 'retail' }, expect: miss('data.tags', '$eq', 'data.tags') },
  { name: 'array equals the whole array', filter: { 'data.tags': ['vip', 'b2b'] }, expect: true },
  {
    name: 'array in another order is not equal',
    filter: { 'data.tags': ['b2b', 'vip'] },
    expect: miss('data.tags', '$eq', 'data.tags'),
  },
  { name: 'array of arrays holds an element', filter: { 'data.matrix': [3, 4] }, expect: true },
  { name: 'object equality, any key order', filter: { 'data.items.0': { qty: 2, sku: 'A-1' } }, expect: true },
  {
    name: 'object equality needs every key',
    filter: { 'data.items.0': { sku: 'A-1' } },
    expect: miss('data.items.0', '$eq', 'data.items.0'),
  },
  { name: 'numeric segment indexes an array', filter: { 'data.items.1.sku': 'B-2' }, expect: true },
  {
    name: 'index past the end is missing',
    filter: { 'data.items.5.sku': { $exists: true } },
    expect: miss('data.items.5.sku.$exists', '$exists', 'data.items.5.sku'),
  },
  { name: 'path through an array of objects', filter: { 'data.items.sku': 'B-2' }, expect: true },
  { name: 'path through an array, one element has it', filter: { 'data.items.gift': true }, expect: true },
  // null and missing
  { name: 'null equals null', filter: { 'data.note': null }, expect: true },
  { name: 'null equals a missing field', filter: { 'data.nothing': null }, expect: true },
  {
    name: 'null does not equal a value',
    filter: { 'data.currency': null },
    expect: miss('data.currency', '$eq', 'data.currency'),
  },
  { name: '$ne null: present and not null', filter: { 'data.currency': { $ne: null } }, expect: true },
  {
    name: '$ne null on a null field',
    filter: { 'data.note': { $ne: null } },
    expect: miss('data.note.$ne', '$ne', 'data.note'),
  },
  {
    name: 'missing field does not equal a value',
    filter: { 'data.nothing': 1 },
    expect: miss('data.nothing', '$eq', 'data.nothing'),
  },
  {
    name: 'a path below a scalar is missing',
    filter: { 'data.currency.code': { $exists: true } },
    expect: miss('data.currency.code.$exists', '$exists', 'data.currency.code'),
  },
  {
    name: 'inherited properties are not fields',
    filter: { 'data.customer.constructor': { $exists: true } },
    expect: miss('data.customer.constructor.$exists', '$exists', 'data.customer.constructor'),
  },
  {
    name: 'an array’s length is not a field',
    filter: { 'data.tags.length': 2 },
    expect: miss('data.tags.length', '$eq', 'data.tags.length'),
  },
  // $ne
  { name: '$ne different', filter: { 'data.currency': { $ne: 'USD' } }, expect: true },
  {
    name: '$ne equal',
    filter: { 'data.currency': { $ne: 'EUR' } },
    expect: miss('data.currency.$ne', '$ne', 'data.currency'),
  },
  { name: '$ne matches a missing field', filter: { 'data.nothing': { $ne: 1 } }, expect: true },
  {
    name: '$ne on an array holding it',
    filter: { 'data.tags': { $ne: 'vip' } },
    expect: miss('data.tags.$ne', '$ne', 'data.tags'),
  },
  // order
  { name: '$gt number', filter: { 'data.amount': { $gt: 50 } }, expect: true },
  {
    name: '$gt equal is false',
    filter: { 'data.amount': { $gt: 99.5 } },
    expect: miss('data.amount.$gt', '$gt', 'data.amount'),
  },
  { name: '$gte equal', filter: { 'data.amount': { $gte: 99.5 } }, expect: true },
  { name: '$lt', filter: { 'data.amount': { $lt: 100 } }, expect: true },
  {
    name: '$lte below',
    filter: { 'data.amount': { $lte: 10 } },
    expect: miss('data.amount.$lte', '$lte', 'data.amount'),
  },
  { name: 'range', filter: { 'data.amount': { $gt: 10, $lt: 100 } }, expect: true },
  {
    name: 'range, the second bound fails',
    filter: { 'data.amount': { $gt: 10, $lt: 50 } },
    expect: miss('data.amount.$lt', '$lt', 'data.amount'),
  },
  { name: 'string order', filter: { 'data.currency': { $gt: 'EUA', $lt: 'EUZ' } }, expect: true },
  {
    name: 'number against a string never matches',
    filter: { 'data.code': { $gt: 1 } },
    expect: miss('data.code.$gt', '$gt', 'data.code'),
  },
  {
    name: 'string against a number never matches',
    filter: { 'data.count': { $gt: '1' } },
    expect: miss('data.count.$gt', '$gt', 'data.count'),
  },
  {
    name: 'number equal to a string is not equal',
    filter: { 'data.code': 5 },
    expect: miss('data.code', '$eq', 'data.code'),
  },
  {
    name: 'string equal to a number is not equal',
    filter: { 'data.count': '5' },
    expect: miss('data.count', '$eq', 'data.count'),
  },
  {
    name: '$gt on null does not match',
    filter: { 'data.note': { $gt: 0 } },
    expect: miss('data.note.$gt', '$gt', 'data.note'),
  },
  {
    name: '$lt on a boolean does not match',
    filter: { 'data.paid': { $lt: 2 } },
    expect: miss('data.paid.$lt', '$lt', 'data.paid'),
  },
  {
    name: '$gt on an object does not match',
    filter: { 'data.customer': { $gt: 'a' } },
    expect: miss('data.customer.$gt', '$gt', 'data.customer'),
  },
  { name: '$gte through array elements', filter: { 'data.items.qty': { $gte: 2 } }, expect: true },
  {
    name: '$gt missing field',
    filter: { 'data.nothing': { $gt: 0 } },
    expect: miss('data.nothing.$gt', '$gt', 'data.nothing'),
  },
  // $in, $nin
  { name: '$in holds it', filter: { 'data.customer.country': { $in: ['DE', 'FR'] } }, expect: true },
  {
    name: '$in does not',
    filter: { 'data.customer.country': { $in: ['DE', 'IT'] } },
    expect: miss('data.customer.country.$in', '$in', 'data.customer.country'),
  },
  { name: '$in with an array field', filter: { 'data.tags': { $in: ['x', 'b2b'] } }, expect: true },
  {
    name: '$in is strict about types',
    filter: { 'data.code': { $in: [5] } },
    expect: miss('data.code.$in', '$in', 'data.code'),
  },
  { name: '$in with null matches a missing field', filter: { 'data.nothing': { $in: [null, 1] } }, expect: true },
  { name: '$in with an object', filter: { 'data.items': { $in: [{ sku: 'B-2', qty: 1, gift: true }] } }, expect: true },
  { name: '$nin', filter: { 'data.customer.country': { $nin: ['DE', 'IT'] } }, expect: true },
  {
    name: '$nin holds it',
    filter: { 'data.customer.country': { $nin: ['FR'] } },
    expect: miss('data.customer.country.$nin', '$nin', 'data.customer.country'),
  },
  { name: '$nin matches a missing field', filter: { 'data.nothing': { $nin: ['FR'] } }, expect: true },
  { name: 'a field’s $not matches a missing field', filter: { 'data.nothing': { $not: { $gt: 1 } } }, expect: true },
  {
    name: '$in empty never matches',
    filter: { 'data.currency': { $in: [] } },
    expect: miss('data.currency.$in', '$in', 'data.currency'),
  },
  // $exists
  { name: '$exists true', filter: { 'data.customer.tier': { $exists: true } }, expect: true },
  { name: '$exists true on null', filter: { 'data.note': { $exists: true } }, expect: true },
  { name: '$exists false on a missing field', filter: { 'data.customer.vat': { $exists: false } }, expect: true },
  {
    name: '$exists false on a present field',
    filter: { 'data.customer.tier': { $exists: false } },
    expect: miss('data.customer.tier.$exists', '$exists', 'data.customer.tier'),
  },
  // $regex
  { name: '$regex finds', filter: { type: { $regex: '^order\\.' } }, expect: true },
  {
    name: '$regex does not',
    filter: { type: { $regex: '^invoice\\.' } },
    expect: miss('type.$regex', '$regex', 'type'),
  },
  {
    name: '$regex case-insensitive',
    filter: { 'data.customer.name': { $regex: '^zOË$', $options: 'i' } },
    expect: true,
  },
  {
    name: '$regex case-sensitive by default',
    filter: { 'data.customer.name': { $regex: '^zoë$' } },
    expect: miss('data.customer.name.$regex', '$regex', 'data.customer.name'),
  },
  {
    name: '$regex on a number does not match',
    filter: { 'data.count': { $regex: '5' } },
    expect: miss('data.count.$regex', '$regex', 'data.count'),
  },
  { name: '$regex through an array', filter: { 'data.items.sku': { $regex: '^B-' } }, expect: true },
  { name: '$regex on unicode', filter: { 'data.名前': { $regex: '^\\p{Han}+$' } }, expect: true },
  { name: '$regex one character is one code point', filter: { 'data.emoji': { $regex: '^.$' } }, expect: true },
  // $not
  { name: '$not of a failing condition', filter: { 'data.amount': { $not: { $gt: 100 } } }, expect: true },
  {
    name: '$not of a passing condition',
    filter: { 'data.amount': { $not: { $gt: 10 } } },
    expect: miss('data.amount.$not', '$not', 'data.amount'),
  },
  { name: '$not matches a missing field', filter: { 'data.nothing': { $not: { $eq: 1 } } }, expect: true },
  { name: '$not of a regex', filter: { 'data.customer.country': { $not: { $regex: '^D' } } }, expect: true },
  { name: 'a filter’s $not', filter: { $not: { 'data.currency': 'USD' } }, expect: true },
  {
    name: 'a filter’s $not that fails',
    filter: { $not: { 'data.currency': 'EUR' } },
    expect: miss('$not', '$not', null),
  },
  // $and, $or
  { name: 'fields combine with AND', filter: { 'data.currency': 'EUR', 'data.customer.country': 'FR' }, expect: true },
  {
    name: 'the first failing field is named',
    filter: { 'data.currency': 'EUR', 'data.customer.country': 'DE', 'data.paid': false },
    expect: miss('data.customer.country', '$eq', 'data.customer.country'),
  },
  { name: '$and', filter: { $and: [{ 'data.amount': { $gt: 10 } }, { 'data.paid': true }] }, expect: true },
  {
    name: '$and names the failing member',
    filter: { $and: [{ 'data.amount': { $gt: 10 } }, { 'data.paid': false }] },
    expect: miss('$and.1.data.paid', '$eq', 'data.paid'),
  },
  {
    name: '$or one passes',
    filter: { $or: [{ 'data.currency': 'USD' }, { 'data.customer.tier': 'gold' }] },
    expect: true,
  },
  {
    name: '$or none passes',
    filter: { $or: [{ 'data.currency': 'USD' }, { 'data.customer.tier': 'silver' }] },
    expect: miss('$or', '$or', null),
  },
  {
    name: 'nested $or inside $and',
    filter: {
      $and: [{ $or: [{ 'data.currency': 'USD' }, { 'data.currency': 'EUR' }] }, { 'data.amount': { $gte: 99 } }],
    },
    expect: true,
  },
  // types and unicode
  { name: 'unicode key and value', filter: { 'data.名前': '注文' }, expect: true },
  {
    name: 'unicode compared exactly (no normalization)',
    filter: { 'data.customer.name': 'Zoe\u0308' },
    expect: miss('data.customer.name', '$eq', 'data.customer.name'),
  },
  { name: 'emoji string order is by code point', filter: { 'data.emoji': { $gt: '\uffff' } }, expect: true },
  {
    name: 'data that is not an object',
    filter: { 'data.x': { $exists: true } },
    event: event('just text'),
    expect: miss('data.x.$exists', '$exists', 'data.x'),
  },
  { name: 'data that is an array', filter: { 'data.1': 'b' }, event: event(['a', 'b']), expect: true },
  { name: 'data null', filter: { data: null }, event: event(null), expect: true },
  {
    name: 'large numbers',
    filter: { 'data.n': { $gt: 9007199254740990 } },
    event: event({ n: 9007199254740991 }),
    expect: true,
  },
  { name: 'zero and negative', filter: { 'data.n': { $lt: 0 } }, event: event({ n: -0.5 }), expect: true },
];

describe('filters: a table of filters against events', () => {
  for (const c of CASES) {
    it(`${c.name}: ${c.expect === true ? 'matches' : `misses at ${c.expect.at}`}`, () => {
      const compiled = compileFilter(c.filter);
      assert.ok(compiled, 'the filter compiles');
      const answer = compiled.miss(c.event ?? ORDER);
      if (c.expect === true) assert.equal(answer, null, `expected a match, got a miss at ${answer?.at}`);
      else assert.deepEqual(answer, c.expect);
    });
  }

  it('no filter (null, undefined, {}) compiles to none: the endpoint receives everything', () => {
    assert.equal(compileFilter(null), null);
    assert.equal(compileFilter(undefined), null);
    assert.equal(compileFilter({}), null);
  });

  it('the compiled filter keeps a plain copy: changing the object given changes nothing', () => {
    const given = { 'data.tags': { $in: ['vip'] } };
    const compiled = compileFilter(given)!;
    (given['data.tags'].$in as string[]).push('x');
    assert.deepEqual(compiled.filter, { 'data.tags': { $in: ['vip'] } });
  });

  it('code point order puts characters above U+FFFF after every BMP character', () => {
    assert.ok(compareCodePoints('😀', '\uffff') > 0);
    assert.ok('😀' < '\uffff', 'where UTF-16 order says otherwise');
    assert.ok(compareCodePoints('a', 'b') < 0);
    assert.equal(compareCodePoints('abc', 'abc'), 0);
    assert.ok(compareCodePoints('ab', 'abc') < 0);
  });
});

/** Asserts `filter` is refused with 422 APP_WEBHOOK_FILTER_INVALID naming `path` and a reason matching `reason`. */
function refused(filter: unknown, path: string, reason: RegExp): void {
  assert.throws(
    () => assertFilter(filter),
    (error: unknown) => {
      assert.ok(isAppError(error), String(error));
      assert.equal(error.status, 422);
      assert.equal(error.code, 'APP_WEBHOOK_FILTER_INVALID');
      assert.equal(error.data?.field, 'filter');
      assert.equal(error.data?.path, path);
      assert.match(String(error.data?.reason), reason);
      assert.match(error.message, reason);
      return true;
    },
  );
}

describe('filters: refused when saved, with the path and the reason', () => {
  it('not an object', () => {
    refused([], '', /must be a JSON object/);
    refused('data.x', '', /must be a JSON object/);
    refused(1, '', /must be a JSON object/);
  });

  it('unknown operators, at the top and in a condition: $where, $expr, $function, $nor, $elemMatch', () => {
    refused({ $where: 'this.data.amount > 1' }, '$where', /unknown operator \$where at the top of a filter/);
    refused({ $expr: { $gt: ['$data.a', 1] } }, '$expr', /unknown operator \$expr/);
    refused({ $nor: [{ 'data.a': 1 }] }, '$nor', /unknown operator \$nor/);
    refused({ 'data.a': { $function: { body: 'x' } } }, 'data.a.$function', /unknown operator \$function in a field/);
    refused({ 'data.items': { $elemMatch: { qty: 1 } } }, 'data.items.$elemMatch', /unknown operator \$elemMatch/);
    refused({ $and: [{ 'data.a': { $size: 1 } }] }, '$and.0.data.a.$size', /unknown operator \$size/);
  });

  it('functions and other values that are not JSON', () => {
    refused({ 'data.a': () => true }, 'data.a', /must be JSON \(a function is not\)/);
    refused({ 'data.a': { $eq: new Date() } }, 'data.a.$eq', /must be JSON/);
    refused({ 'data.a': { $regex: /a+/ } }, 'data.a.$regex', /must be JSON/);
    refused({ 'data.a': Number.NaN }, 'data.a', /finite/);
    refused({ 'data.a': Number.POSITIVE_INFINITY }, 'data.a', /finite/);
    refused({ 'data.a': 10n }, 'data.a', /must be JSON \(a bigint is not\)/);
  });

  it('paths: from type, timestamp or data; no empty segment; no $ segment', () => {
    refused({ 'customer.country': 'FR' }, 'customer.country', /a path starts with type, timestamp, data/);
    refused({ 'data..x': 1 }, 'data..x', /empty segment/);
    refused({ 'data.x.': 1 }, 'data.x.', /empty segment/);
    refused({ 'data.$x': 1 }, 'data.$x', /may not start with \$/);
  });

  it('malformed operands', () => {
    refused({ 'data.a': { $in: 'x' } }, 'data.a.$in', /\$in takes a list/);
    refused({ 'data.a': { $nin: { a: 1 } } }, 'data.a.$nin', /\$nin takes a list/);
    refused({ 'data.a': { $in: [{ $gt: 1 }] } }, 'data.a.$in', /plain values/);
    refused({ 'data.a': { $gt: true } }, 'data.a.$gt', /number or a string/);
    refused({ 'data.a': { $lte: null } }, 'data.a.$lte', /number or a string/);
    refused({ 'data.a': { $exists: 1 } }, 'data.a.$exists', /true or false/);
    refused({ 'data.a': { $not: 1 } }, 'data.a.$not', /object of operators/);
    refused({ $and: [] }, '$and', /non-empty list/);
    refused({ $or: {} }, '$or', /non-empty list/);
    refused({ $and: [{}] }, '$and.0', /at least one condition/);
    refused({ $not: 'x' }, '$not', /object of conditions/);
    refused({ 'data.a': { $gt: 1, b: 2 } }, 'data.a.b', /either operators or a value/);
    refused({ 'data.a': { $options: 'i' } }, 'data.a.$options', /goes with \$regex/);
    refused({ 'data.a': { $regex: 'a', $options: 'x' } }, 'data.a.$options', /flags i, m and s/);
    refused({ 'data.a': { $regex: 1 } }, 'data.a.$regex', /pattern as a string/);
  });

  it('patterns RE2 cannot run (backreferences, lookaround) and ones too long or too complex', () => {
    refused({ 'data.a': { $regex: '(a)\\1' } }, 'data.a.$regex', /RE2 syntax/);
    refused({ 'data.a': { $regex: '(?=a)b' } }, 'data.a.$regex', /RE2 syntax/);
    refused({ 'data.a': { $regex: '(?<=a)b' } }, 'data.a.$regex', /RE2 syntax/);
    refused({ 'data.a': { $regex: '[' } }, 'data.a.$regex', /RE2 syntax/);
    refused({ 'data.a': { $regex: 'a'.repeat(257) } }, 'data.a.$regex', /longer than 256 characters/);
    refused({ 'data.a': { $regex: '[\\s\\S]{999}' } }, 'data.a.$regex', /too complex/);
    assert.ok(assertFilter({ 'data.a': { $regex: 'a'.repeat(256).slice(0, 90) } }), 'a long plain pattern is fine');
  });

  it('limits: size, depth, number of conditions', () => {
    refused({ 'data.a': 'x'.repeat(FILTER_LIMITS.maxBytes) }, '', /longer than 4096 bytes/);
    refused({ 'data.a': '€'.repeat(1400) }, '', /longer than 4096 bytes/); // 4,200 bytes in UTF-8, 1,400 characters
    let deep: Record<string, unknown> = { 'data.a': 1 };
    for (let i = 0; i < 4; i++) deep = { $and: [deep] };
    refused(deep, '$and.0.$and.0.$and.0.$and.0', /deeper than 8 levels/);
    const many = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`data.f${i}`, i]));
    refused(many, 'data.f64', /more than 64 conditions/);
    const sixtyFour = Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`data.f${i}`, i]));
    assert.ok(assertFilter(sixtyFour), 'exactly the limit is fine');
  });

  it('text PostgreSQL cannot store: U+0000 and lone surrogates', () => {
    refused({ 'data.a': 'x\u0000y' }, '', /U\+0000/);
    refused({ 'data.a': '\ud800' }, '', /lone UTF-16 surrogate/);
  });

  it('a field name other than filter is named as given', () => {
    assert.throws(
      () => assertFilter({ $where: 1 }, 'event.filter'),
      (error: unknown) => isAppError(error) && error.data?.field === 'event.filter',
    );
  });
});

// The bounds on time below catch unbounded work (a stack exhausted, exponential backtracking),
// which takes minutes or forever: they are set far above what the work takes, so that a loaded
// machine never trips them. How fast the checks are is a benchmark's matter, not these tests'.
describe('filters: hostile filters', () => {
  it('a nesting 100,000 levels deep is refused at once, without exhausting the stack', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = { $not: deep };
    const started = performance.now();
    assert.throws(() => assertFilter(deep), /deeper than 8 levels/);
    assert.ok(performance.now() - started < 10_000);
  });

  it('a 1 MB filter is refused by its size', () => {
    const wide = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`data.f${i}`, 'x'.repeat(20)]));
    const long = { 'data.a': 'x'.repeat(1_048_576) };
    const started = performance.now();
    assert.throws(() => assertFilter(wide), /longer than 4096 bytes/);
    assert.throws(() => assertFilter(long), /longer than 4096 bytes/);
    assert.ok(performance.now() - started < 10_000);
  });

  it('a catastrophic pattern for a backtracking engine, (a+)+$, runs in linear time on a long string', () => {
    const compiled = compileFilter({ 'data.s': { $regex: '(a+)+$' } })!;
    const started = performance.now();
    assert.deepEqual(compiled.miss(event({ s: `${'a'.repeat(4000)}b` })), {
      path: 'data.s',
      operator: '$regex',
      at: 'data.s.$regex',
    });
    assert.equal(compiled.miss(event({ s: 'a'.repeat(4000) })), null);
    // past what one evaluation may read, a string does not match and is not read at all
    assert.notEqual(compiled.miss(event({ s: 'a'.repeat(1_000_000) })), null);
    assert.ok(performance.now() - started < 10_000, `took ${performance.now() - started} ms`);
  });

  it('the costliest filter the limits allow ends on a hostile event, each evaluation bounded', () => {
    // as many regular expressions as fit, each near the complexity limit, on strings as long as allowed
    const filter = {
      $or: Array.from({ length: 30 }, (_, i) => ({ [`data.s${i % 3}`]: { $regex: `(x+x+)+y${i}` } })),
    };
    const compiled = compileFilter(filter)!;
    const hostile = event({ s0: 'x'.repeat(4096), s1: 'x'.repeat(4096), s2: 'x'.repeat(4096) });
    const started = performance.now();
    for (let i = 0; i < 10; i++) assert.notEqual(compiled.miss(hostile), null);
    const each = (performance.now() - started) / 10;
    assert.ok(each < 1_000, `one evaluation took ${each.toFixed(1)} ms`);
  });

  it('a stored filter that no longer passes the checks matches nothing and says why, never throwing', () => {
    const reasons: unknown[] = [];
    const compiled = compileStoredFilter({ $where: 'true' }, (error) => reasons.push(error))!;
    assert.deepEqual(compiled.miss(ORDER), { path: null, operator: '$invalid', at: '' });
    assert.equal(reasons.length, 1);
    assert.equal(compileStoredFilter(null), null);
  });

  it('evaluation never throws, whatever the event holds', () => {
    const compiled = compileFilter({
      'data.a.b.c': { $gt: 1, $in: [1, 'x', null, { k: [1] }], $regex: 'x', $not: { $eq: 2 } },
      $or: [{ 'data.a': { $exists: true } }, { type: { $lt: 'z' } }],
    })!;
    const odd: unknown[] = [
      undefined,
      null,
      0,
      '',
      [],
      {},
      [[[]]],
      { a: null },
      { a: [null, 1, 'x'] },
      { a: { b: [] } },
    ];
    for (const data of odd) compiled.miss(event(data));
    compiled.miss({ type: 1, timestamp: null, data: Object.create(null) } as unknown as FilterEvent);
  });
});

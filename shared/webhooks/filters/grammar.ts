/**
 * Subscription filters: a JSON document in MongoDB's query style that an endpoint's deliveries
 * must match, tested against the event as its receiver sees it, `{type, timestamp, data}`
 * (docs/webhooks-api.md "Filters"). This module is the whole grammar: it checks a filter once,
 * when it is saved or tried, and turns it into a tree of small functions that an emit runs for
 * every subscribed endpoint (compiled once per endpoint in the cache, endpoints/cache.ts).
 *
 * Written here rather than taken from a query library: the operators allowed are a fixed list
 * checked at save, a miss must name the condition that failed, a value of the wrong type must
 * simply not match (never throw), and `$regex` must run on a linear-time engine (re2js, a
 * JavaScript port of RE2: no backtracking, so no pattern can take exponential time).
 *
 * Semantics, as MongoDB's where they overlap:
 * - Keys are dot paths from `type`, `timestamp` or `data`; a path crosses arrays (each element
 *   is looked into) and a numeric segment indexes an array (`data.items.0.sku`).
 * - A plain value is equality; a field whose value is an array matches when the array equals the
 *   value or one of its elements does. `null` matches null and a missing field.
 * - `$gt`, `$gte`, `$lt`, `$lte` compare numbers with numbers and strings with strings (by code
 *   point); a value of another type does not match.
 * - `$ne`, `$nin` and a field-level `$not` are the negations of `$eq`, `$in` and the conditions
 *   they hold, so they match a missing field; `$exists: false` matches only a missing field.
 * - `$and` and `$or` take a non-empty list of filters; `$not` at the top of a filter takes a filter.
 * - The keys of an object are tried in their order (a store may keep them in another order:
 *   PostgreSQL's jsonb does), which only changes which failed condition a miss names.
 */
import { RE2JS } from 're2js';
import { programSize } from '../linear-pattern.ts';
import { unprocessable } from '../../errors/app-error.ts';

/** A filter as stored with an endpoint and shown by every face: plain JSON. */
export type WebhookFilter = Record<string, unknown>;

/** The limits a filter is checked against when it is saved or tried. */
export const FILTER_LIMITS = Object.freeze({
  /** Longest filter, in bytes of its JSON text (UTF-8). */
  maxBytes: 4096,
  /** Deepest nesting of objects and arrays (the filter itself is level 1). */
  maxDepth: 8,
  /** Most conditions: every operator, and every plain value (an implicit `$eq`). */
  maxOperators: 64,
  /** Longest `$regex` pattern, in characters. */
  maxRegexLength: 256,
  /** Most instructions of a compiled `$regex` (what one character of input can cost). */
  maxRegexProgram: 100,
  /**
   * Most characters the `$regex` conditions of one filter read in one event, together: a string
   * that would take them past it does not match. Bounds what a filter can cost an emit.
   */
  maxRegexInput: 4096,
});

/** The roots a path may start from: the fields of the event its receiver is sent. */
export const FILTER_ROOTS = ['type', 'timestamp', 'data'] as const;

/** The operators of a field's condition. */
export const FIELD_OPERATORS = [
  '$eq',
  '$ne',
  '$gt',
  '$gte',
  '$lt',
  '$lte',
  '$in',
  '$nin',
  '$exists',
  '$regex',
  '$options',
  '$not',
] as const;
/** The operators that combine filters. */
export const LOGICAL_OPERATORS = ['$and', '$or', '$not'] as const;

/** Flags `$options` may hold: case-insensitive, multi-line anchors, `.` matching line breaks. */
const REGEX_FLAGS: Readonly<Record<string, number>> = {
  i: RE2JS.CASE_INSENSITIVE,
  m: RE2JS.MULTILINE,
  s: RE2JS.DOTALL,
};

/** The event a filter is tested against: what its receiver is sent, less the delivery's own id. */
export interface FilterEvent {
  type: string;
  /** ISO 8601, as in the delivery's body. */
  timestamp: string;
  data: unknown;
}

/** The condition that failed first. */
export interface FilterMiss {
  /** The event's field the condition tests (`data.customer.country`); null for `$or` and a filter's `$not`. */
  readonly path: string | null;
  readonly operator: string;
  /** Where the condition is in the filter, as a dot path (`$and.1.data.amount.$gt`). */
  readonly at: string;
}

/** A filter made ready to run: `miss` answers null when the event matches, else the condition that failed first. */
export interface CompiledFilter {
  readonly filter: WebhookFilter;
  miss(event: FilterEvent): FilterMiss | null;
}

/** What an evaluation may still spend on `$regex` (characters). */
interface Budget {
  regexInput: number;
}

type Node = (root: unknown, budget: Budget) => FilterMiss | null;
type Test = (value: unknown, budget: Budget) => boolean;

const has = Object.prototype.hasOwnProperty;

/** AppError 422 `APP_WEBHOOK_FILTER_INVALID` naming where in the filter (`path`) and why. */
export function filterInvalid(path: string, reason: string, field = 'filter') {
  return unprocessable(`invalid filter${path ? ` at ${path}` : ''}: ${reason}`, {
    code: 'APP_WEBHOOK_FILTER_INVALID',
    data: { field, path, reason },
  });
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

const join = (at: string, key: string) => (at === '' ? key : `${at}.${key}`);

/**
 * Walks `value` without recursion (so a hostile nesting cannot exhaust the stack) and refuses
 * what is not plain JSON, a nesting deeper than the limit, or more nodes than the size limit
 * could hold.
 */
function checkShape(value: unknown): void {
  const stack: Array<{ value: unknown; depth: number; at: string }> = [{ value, depth: 1, at: '' }];
  let nodes = 0;
  while (stack.length > 0) {
    const { value: node, depth, at } = stack.pop()!;
    // every value takes at least one byte of JSON text
    if (++nodes > FILTER_LIMITS.maxBytes) throw filterInvalid('', `longer than ${FILTER_LIMITS.maxBytes} bytes`);
    if (node === null || typeof node === 'string' || typeof node === 'boolean') continue;
    if (typeof node === 'number') {
      if (!Number.isFinite(node)) throw filterInvalid(at, 'numbers must be finite');
      continue;
    }
    const isArray = Array.isArray(node);
    if (!isArray && !isPlainObject(node))
      throw filterInvalid(
        at,
        `must be JSON (${typeof node === 'function' ? 'a function' : `a ${typeof node}`} is not)`,
      );
    if (depth > FILTER_LIMITS.maxDepth)
      throw filterInvalid(at, `nested deeper than ${FILTER_LIMITS.maxDepth} levels of objects and arrays`);
    const entries = isArray ? (node as unknown[]).map((item, i) => [String(i), item] as const) : Object.entries(node);
    for (const [key, item] of entries) stack.push({ value: item, depth: depth + 1, at: join(at, key) });
  }
}

// The JSON text of a string holding U+0000 or a lone surrogate: what PostgreSQL's jsonb refuses.
const ESCAPED_NUL = /(?:^|[^\\])(?:\\\\)*\\u0000/;
const ESCAPED_SURROGATE = /(?:^|[^\\])(?:\\\\)*\\ud[89a-f][0-9a-f]{2}/;

/**
 * Checks `value` as a filter and answers it made ready to run, with the filter itself as plain
 * JSON (a copy: later changes to `value` change nothing). Null, undefined and `{}` mean "no
 * filter" and answer null. Throws 422 `APP_WEBHOOK_FILTER_INVALID` (`data: {field, path,
 * reason}`) for anything outside the grammar or the limits.
 */
export function compileFilter(value: unknown, field = 'filter'): CompiledFilter | null {
  if (value === undefined || value === null) return null;
  try {
    if (!isPlainObject(value)) throw filterInvalid('', 'must be a JSON object (or null for none)');
    checkShape(value);
    const text = JSON.stringify(value);
    if (Buffer.byteLength(text, 'utf8') > FILTER_LIMITS.maxBytes)
      throw filterInvalid('', `longer than ${FILTER_LIMITS.maxBytes} bytes`);
    if (ESCAPED_NUL.test(text)) throw filterInvalid('', 'contains the character U+0000, which cannot be stored');
    if (ESCAPED_SURROGATE.test(text))
      throw filterInvalid('', 'contains a lone UTF-16 surrogate, which cannot be stored');
    const filter = JSON.parse(text) as WebhookFilter;
    if (Object.keys(filter).length === 0) return null;
    const counter = { operators: 0 };
    const node = compileDocument(filter, '', counter);
    return Object.freeze({
      filter,
      miss: (event: FilterEvent) => node(event, { regexInput: FILTER_LIMITS.maxRegexInput }),
    });
  } catch (error) {
    const data = (error as { data?: Record<string, unknown> }).data;
    if (data !== undefined && field !== 'filter') data.field = field;
    throw error;
  }
}

/** The filter, checked (as {@link compileFilter}): the plain JSON to store, or null for none. */
export function assertFilter(value: unknown, field = 'filter'): WebhookFilter | null {
  return compileFilter(value, field)?.filter ?? null;
}

function count(counter: { operators: number }, at: string): void {
  if (++counter.operators > FILTER_LIMITS.maxOperators)
    throw filterInvalid(at, `more than ${FILTER_LIMITS.maxOperators} conditions`);
}

/** A filter document: its keys are paths and logical operators, all of which must match. */
function compileDocument(document: unknown, at: string, counter: { operators: number }): Node {
  if (!isPlainObject(document)) throw filterInvalid(at, 'must be an object of conditions');
  const keys = Object.keys(document);
  if (keys.length === 0) throw filterInvalid(at, 'must hold at least one condition');
  const nodes: Node[] = keys.map((key) => {
    const here = join(at, key);
    const value = document[key];
    if (key.startsWith('$')) {
      if (key === '$and' || key === '$or') return compileList(key, value, here, counter);
      if (key === '$not') {
        count(counter, here);
        const inner = compileDocument(value, here, counter);
        const miss: FilterMiss = Object.freeze({ path: null, operator: '$not', at: here });
        return (root, budget) => (inner(root, budget) === null ? miss : null);
      }
      throw filterInvalid(here, unknownOperator(key, LOGICAL_OPERATORS, 'at the top of a filter'));
    }
    return compileField(key, value, here, counter);
  });
  return nodes.length === 1 ? nodes[0] : all(nodes);
}

const all =
  (nodes: Node[]): Node =>
  (root, budget) => {
    for (const node of nodes) {
      const miss = node(root, budget);
      if (miss !== null) return miss;
    }
    return null;
  };

function compileList(operator: '$and' | '$or', value: unknown, at: string, counter: { operators: number }): Node {
  count(counter, at);
  if (!Array.isArray(value) || value.length === 0)
    throw filterInvalid(at, `${operator} takes a non-empty list of filters`);
  const nodes = value.map((item, i) => compileDocument(item, join(at, String(i)), counter));
  if (operator === '$and') return all(nodes);
  const miss: FilterMiss = Object.freeze({ path: null, operator: '$or', at });
  return (root, budget) => {
    for (const node of nodes) if (node(root, budget) === null) return null;
    return miss;
  };
}

function unknownOperator(key: string, allowed: readonly string[], where: string): string {
  return `unknown operator ${key} ${where} (allowed: ${allowed.join(', ')})`;
}

/** A path's segments, checked: from a root of the event, no empty segment, none starting with `$`. */
function pathSegments(path: string, at: string): string[] {
  const segments = path.split('.');
  if (!(FILTER_ROOTS as readonly string[]).includes(segments[0]))
    throw filterInvalid(at, `a path starts with ${FILTER_ROOTS.join(', ')} (the event as its receiver sees it)`);
  if (segments.some((segment) => segment === ''))
    throw filterInvalid(at, 'a path may not have an empty segment (a leading, trailing or doubled dot)');
  if (segments.some((segment) => segment.startsWith('$')))
    throw filterInvalid(at, 'a path segment may not start with $ (operators go inside the condition)');
  return segments;
}

const INDEX = /^(?:0|[1-9][0-9]{0,8})$/;

/**
 * The values a path reaches: none when it is missing. An array met before the last segment is
 * looked into: its element at a numeric segment, else the same path in each of its objects.
 */
function lookup(root: unknown, segments: readonly string[]): unknown[] {
  let current: unknown[] = [root];
  for (const segment of segments) {
    const next: unknown[] = [];
    for (const value of current) {
      if (Array.isArray(value)) {
        if (INDEX.test(segment)) {
          const index = Number(segment);
          if (index < value.length) next.push(value[index]);
        } else {
          for (const item of value)
            if (isObject(item) && has.call(item, segment)) next.push((item as Record<string, unknown>)[segment]);
        }
      } else if (isObject(value) && has.call(value, segment)) {
        next.push((value as Record<string, unknown>)[segment]);
      }
    }
    if (next.length === 0) return next;
    current = next;
  }
  return current;
}

const isObject = (value: unknown): value is object =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Whether one of the values, or an element of one that is an array, passes `test`. */
function anyValue(values: readonly unknown[], test: Test, budget: Budget): boolean {
  for (const value of values) {
    if (test(value, budget)) return true;
    if (Array.isArray(value)) for (const item of value) if (test(item, budget)) return true;
  }
  return false;
}

/** One field's condition: a plain value (equality) or an object of field operators. */
function compileField(path: string, condition: unknown, at: string, counter: { operators: number }): Node {
  const segments = pathSegments(path, at);
  const tests = fieldTests(condition, at, counter);
  const misses = tests.map(({ operator, here }) => Object.freeze({ path, operator, at: here }) as FilterMiss);
  return (root, budget) => {
    const values = lookup(root, segments);
    for (let i = 0; i < tests.length; i++) if (!tests[i].matches(values, budget)) return misses[i];
    return null;
  };
}

interface FieldTest {
  operator: string;
  /** Where it is in the filter. */
  here: string;
  matches(values: readonly unknown[], budget: Budget): boolean;
}

const isOperatorObject = (value: unknown): value is Record<string, unknown> =>
  isPlainObject(value) && Object.keys(value).some((key) => key.startsWith('$'));

/** The tests of a field's condition, in order; all must pass. */
function fieldTests(condition: unknown, at: string, counter: { operators: number }): FieldTest[] {
  if (!isOperatorObject(condition)) {
    count(counter, at);
    return [{ operator: '$eq', here: at, matches: equalsTest(condition) }];
  }
  const keys = Object.keys(condition);
  const plain = keys.find((key) => !key.startsWith('$'));
  if (plain !== undefined)
    throw filterInvalid(
      join(at, plain),
      'a condition is either operators or a value to equal, not both (to match an object holding $ keys, give the whole object to $eq)',
    );
  if ('$options' in condition && !('$regex' in condition))
    throw filterInvalid(join(at, '$options'), '$options goes with $regex');
  const tests: FieldTest[] = [];
  for (const key of keys) {
    const here = join(at, key);
    const operand = condition[key];
    if (key === '$options') continue;
    count(counter, here);
    switch (key) {
      case '$eq':
        tests.push({ operator: key, here, matches: equalsTest(operand) });
        break;
      case '$ne': {
        const equal = equalsTest(operand);
        tests.push({ operator: key, here, matches: (values, budget) => !equal(values, budget) });
        break;
      }
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte':
        tests.push({ operator: key, here, matches: orderTest(key, operand, here) });
        break;
      case '$in':
      case '$nin': {
        const within = inTest(operand, here, key);
        tests.push({
          operator: key,
          here,
          matches: key === '$in' ? within : (values, budget) => !within(values, budget),
        });
        break;
      }
      case '$exists': {
        if (typeof operand !== 'boolean') throw filterInvalid(here, '$exists takes true or false');
        tests.push({ operator: key, here, matches: (values) => values.length > 0 === operand });
        break;
      }
      case '$regex':
        tests.push({ operator: key, here, matches: regexTest(operand, condition.$options, here) });
        break;
      case '$not': {
        if (!isOperatorObject(operand))
          throw filterInvalid(here, 'a field’s $not takes an object of operators, such as {"$in": ["a", "b"]}');
        const inner = fieldTests(operand, here, counter);
        tests.push({
          operator: key,
          here,
          matches: (values, budget) => !inner.every((test) => test.matches(values, budget)),
        });
        break;
      }
      default:
        throw filterInvalid(here, unknownOperator(key, FIELD_OPERATORS, 'in a field’s condition'));
    }
  }
  return tests;
}

/** Equality with `expected` (an array field also matches through one of its elements); null matches a missing field. */
function equalsTest(expected: unknown): FieldTest['matches'] {
  const test: Test =
    expected === null || typeof expected !== 'object'
      ? (value) => value === expected
      : (value) => deepEqual(value, expected);
  return (values, budget) => (expected === null && values.length === 0) || anyValue(values, test, budget);
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => deepEqual(item, other[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => has.call(right, key) && deepEqual(left[key], right[key]));
}

/** Compares strings by code point (JavaScript's `<` compares UTF-16 code units, which differs past U+FFFF). */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // surrogates (U+D800–DFFF) encode code points above every BMP character: move them up past U+FFFF
    const rank = (unit: number) =>
      unit >= 0xd800 && unit <= 0xdfff ? unit + 0x2000 : unit >= 0xe000 ? unit - 0x800 : unit;
    return rank(x) - rank(y);
  }
  return a.length - b.length;
}

function orderTest(operator: '$gt' | '$gte' | '$lt' | '$lte', operand: unknown, at: string): FieldTest['matches'] {
  if (typeof operand !== 'number' && typeof operand !== 'string')
    throw filterInvalid(at, `${operator} takes a number or a string`);
  const holds =
    operator === '$gt'
      ? (order: number) => order > 0
      : operator === '$gte'
        ? (order: number) => order >= 0
        : operator === '$lt'
          ? (order: number) => order < 0
          : (order: number) => order <= 0;
  const test: Test =
    typeof operand === 'number'
      ? (value) => typeof value === 'number' && holds(value - operand)
      : (value) => typeof value === 'string' && holds(compareCodePoints(value, operand));
  return (values, budget) => anyValue(values, test, budget);
}

function inTest(operand: unknown, at: string, operator: string): FieldTest['matches'] {
  if (!Array.isArray(operand)) throw filterInvalid(at, `${operator} takes a list of values`);
  if (operand.some((item) => isOperatorObject(item)))
    throw filterInvalid(at, `${operator} takes plain values, not operators`);
  const plain = new Set(operand.filter((item) => item === null || typeof item !== 'object'));
  const objects = operand.filter((item) => item !== null && typeof item === 'object');
  const test: Test = (value) =>
    plain.has(value as never) ||
    (objects.length > 0 &&
      value !== null &&
      typeof value === 'object' &&
      objects.some((item) => deepEqual(value, item)));
  const matchesMissing = plain.has(null);
  return (values, budget) => (matchesMissing && values.length === 0) || anyValue(values, test, budget);
}

function regexTest(pattern: unknown, options: unknown, at: string): FieldTest['matches'] {
  if (typeof pattern !== 'string') throw filterInvalid(at, '$regex takes a pattern as a string (RE2 syntax)');
  if (pattern.length > FILTER_LIMITS.maxRegexLength)
    throw filterInvalid(at, `$regex pattern longer than ${FILTER_LIMITS.maxRegexLength} characters`);
  let flags = 0;
  if (options !== undefined) {
    if (typeof options !== 'string' || [...options].some((flag) => !(flag in REGEX_FLAGS)))
      throw filterInvalid(at.replace(/\$regex$/, '$options'), '$options holds only the flags i, m and s');
    for (const flag of options) flags |= REGEX_FLAGS[flag];
  }
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern, flags);
  } catch (error) {
    throw filterInvalid(
      at,
      `$regex is not a pattern this service runs (RE2 syntax: no backreferences or lookaround): ${(error as Error).message}`,
    );
  }
  const size = programSize(compiled);
  if (size !== undefined && size > FILTER_LIMITS.maxRegexProgram)
    throw filterInvalid(
      at,
      `$regex is too complex (${size} instructions, at most ${FILTER_LIMITS.maxRegexProgram}: use fewer or smaller counted repetitions)`,
    );
  const test: Test = (value, budget) => {
    if (typeof value !== 'string') return false;
    budget.regexInput -= value.length;
    return budget.regexInput >= 0 && compiled.test(value);
  };
  return (values, budget) => anyValue(values, test, budget);
}

/**
 * A stored filter made ready to run, for emits: never throws. A filter that no longer passes the
 * checks (written to the store by other software, or under older rules) matches nothing, and
 * `onInvalid` is told why.
 */
export function compileStoredFilter(
  filter: WebhookFilter | null,
  onInvalid: (error: unknown) => void = () => {},
): CompiledFilter | null {
  if (filter === null) return null;
  try {
    return compileFilter(filter);
  } catch (error) {
    onInvalid(error);
    const miss: FilterMiss = Object.freeze({ path: null, operator: '$invalid', at: '' });
    return Object.freeze({ filter, miss: () => miss });
  }
}

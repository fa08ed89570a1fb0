/** What a problem answer echoes of a client's input is bounded in depth, breadth and length. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { boundedData, BOUNDS } from '../../../api/http/bounded-data.ts';

const nested = (depth: number): unknown => {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i += 1) value = [value];
  return value;
};

describe('boundedData', () => {
  it('cuts a value nested 100,000 deep at BOUNDS.depth, and it serialises', () => {
    const bounded = boundedData({ value: nested(100_000) });
    const text = JSON.stringify(bounded);
    assert.ok(text.length < 200, text);
    assert.match(text, /\[Nested\]/);
  });

  it('keeps BOUNDS.entries entries of a list or an object and BOUNDS.chars characters of a string', () => {
    const bounded = boundedData({ list: Array.from({ length: 1000 }, (_, i) => i), text: 'y'.repeat(10_000) }) as {
      list: number[];
      text: string;
    };
    assert.equal(bounded.list.length, BOUNDS.entries);
    assert.equal(bounded.text.length, BOUNDS.chars + 1);
    const object = boundedData(Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, i]))) as Record<
      string,
      number
    >;
    assert.equal(Object.keys(object).length, BOUNDS.entries);
  });

  it('leaves ordinary data as it is', () => {
    const data = { field: 'owner', reason: 'must be a string', value: { a: [1, 2, { b: null }] } };
    assert.deepEqual(boundedData(data), data);
  });
});

/** The test-side RFC 8941 parser is strict: what it accepts in the rate-limit tests is valid syntax. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDictionary, parseItem, parseList } from './structured-fields.ts';

describe('RFC 8941 parser used for the draft-7 headers', () => {
  it('parses a RateLimit dictionary and a RateLimit-Policy list', () => {
    const dict = parseDictionary('limit=600, remaining=599, reset=60');
    assert.deepEqual([...dict].map(([key, member]) => [key, 'value' in member ? member.value : undefined]), [['limit', 600], ['remaining', 599], ['reset', 60]]);
    const [policy] = parseList('600;w=60');
    assert.equal('value' in policy && policy.value, 600);
    assert.equal('params' in policy && policy.params.get('w'), 60);
  });

  for (const bad of ['limit=600,', 'limit=600 remaining=1', 'Limit=600', 'limit=6OO', 'limit=1234567890123456', 'limit="a']) {
    it(`refuses the dictionary ${JSON.stringify(bad)}`, () => assert.throws(() => parseDictionary(bad), SyntaxError));
  }
  for (const bad of ['600;w=', '600;W=60', '600,,10', '600;w=60 x']) {
    it(`refuses the list ${JSON.stringify(bad)}`, () => assert.throws(() => parseList(bad), SyntaxError));
  }

  it('parses strings, tokens, booleans, decimals and inner lists', () => {
    assert.deepEqual(parseItem('"a\\"b"').value, 'a"b');
    assert.deepEqual(parseItem('tok/en').value, { token: 'tok/en' });
    assert.equal(parseItem('?0').value, false);
    assert.equal(parseItem('1.5').value, 1.5);
    const [inner] = parseList('(1 2);q=1');
    assert.equal('items' in inner && inner.items.length, 2);
  });
});

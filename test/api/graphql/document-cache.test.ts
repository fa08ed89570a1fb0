import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createDocumentCache, DOCUMENT_CACHE_BOUNDS } from '../../../api/graphql/document-cache.ts';

describe('document cache: least recently used texts go first, within a count and a length bound', () => {
  it('keeps what was set and answers undefined for an unknown text', () => {
    const cache = createDocumentCache<number>();
    cache.set('{ a }', 1);
    assert.equal(cache.get('{ a }'), 1);
    assert.equal(cache.get('{ b }'), undefined);
    assert.equal(cache.size, 1);
    assert.equal(cache.characters, 5);
  });

  it('beyond maxEntries the least recently used text is dropped (a get counts as a use)', () => {
    const cache = createDocumentCache<string>({ maxEntries: 2, maxCharacters: 1000 });
    cache.set('one', '1');
    cache.set('two', '2');
    assert.equal(cache.get('one'), '1'); // `two` is now the least recently used
    cache.set('three', '3');
    assert.equal(cache.size, 2);
    assert.equal(cache.get('two'), undefined);
    assert.equal(cache.get('one'), '1');
    assert.equal(cache.get('three'), '3');
  });

  it('beyond maxCharacters the oldest texts are dropped; a text longer than the bound is never kept', () => {
    const cache = createDocumentCache<number>({ maxEntries: 100, maxCharacters: 10 });
    cache.set('aaaa', 1);
    cache.set('bbbb', 2);
    cache.set('cccc', 3); // 12 characters: aaaa goes
    assert.deepEqual([cache.get('aaaa'), cache.get('bbbb'), cache.get('cccc')], [undefined, 2, 3]);
    assert.equal(cache.characters, 8);
    cache.set('x'.repeat(11), 4);
    assert.equal(cache.get('x'.repeat(11)), undefined);
    assert.equal(cache.size, 2);
  });

  it('setting a kept text again replaces its value without counting it twice', () => {
    const cache = createDocumentCache<number>({ maxEntries: 2, maxCharacters: 100 });
    cache.set('same', 1);
    cache.set('same', 2);
    assert.equal(cache.get('same'), 2);
    assert.equal(cache.size, 1);
    assert.equal(cache.characters, 4);
  });

  it('a flood of distinct texts stays within the default bounds', () => {
    const cache = createDocumentCache<number>();
    for (let i = 0; i < 3 * DOCUMENT_CACHE_BOUNDS.maxEntries; i++) cache.set(`{ field${i} }`, i);
    assert.equal(cache.size, DOCUMENT_CACHE_BOUNDS.maxEntries);
    assert.ok(cache.characters <= DOCUMENT_CACHE_BOUNDS.maxCharacters);
  });
});

/**
 * The `Link` header of a collection stays under MAX_LINK_HEADER characters: long filters repeat on
 * every link, and proxies refuse large header blocks. It keeps next, prev, first, last, self in
 * that order while they fit, lists them in the usual order, and is empty when not even next fits.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { linkHeader, MAX_LINK_HEADER, type Links } from '../../../api/hal/links.ts';

const paging = (filter: string): Links => ({
  self: { href: `/api/v1/webhooks?${filter}&page=2` },
  first: { href: `/api/v1/webhooks?${filter}&page=1` },
  prev: { href: `/api/v1/webhooks?${filter}&page=1` },
  next: { href: `/api/v1/webhooks?${filter}&page=3` },
  last: { href: `/api/v1/webhooks?${filter}&page=9` },
});

const rels = (header: string) => [...header.matchAll(/rel="([a-z]+)"/g)].map((match) => match[1]);

describe('Link header', () => {
  it('carries every paging link, in the usual order, when they fit', () => {
    assert.deepEqual(rels(linkHeader(paging('events=a.b'))), ['self', 'first', 'prev', 'next', 'last']);
  });

  it('keeps next, then prev, first, last, self while they fit, never past MAX_LINK_HEADER', () => {
    for (const size of [300, 500, 700, 1000, 1900]) {
      const header = linkHeader(paging(`events=${'x'.repeat(size)}`));
      assert.ok(header.length <= MAX_LINK_HEADER, `${size}: ${header.length}`);
      const kept = rels(header);
      assert.ok(kept.includes('next'), `${size}: next kept (${kept})`);
      const order = ['next', 'prev', 'first', 'last', 'self'];
      assert.deepEqual(
        order.filter((rel) => kept.includes(rel)),
        order.slice(0, kept.length),
        `${size}: the most useful kept (${kept})`,
      );
    }
  });

  it('is empty (no header) when not even next fits', () => {
    assert.equal(linkHeader(paging(`events=${'x'.repeat(MAX_LINK_HEADER)}`)), '');
  });
});

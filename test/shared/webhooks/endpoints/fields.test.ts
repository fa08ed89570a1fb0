import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { appError } from '../fixtures.ts';
import { assertDescription, assertOwner, assertOwnerFilter } from '../../../../shared/webhooks/endpoints/fields.ts';

describe('assertOwner: the owner a write sets', () => {
  it('refuses C1 control characters (CSI U+009B, NEL U+0085) as it refuses C0 ones', () => {
    for (const owner of ['acme\u009b31m', 'acme\u0085', '\u0080acme', 'acme\u001b', 'acme\u007f'])
      assert.throws(() => assertOwner(owner), appError('APP_WEBHOOK_OWNER_INVALID', 422), JSON.stringify(owner));
  });

  it('refuses leading or trailing whitespace, so "acme " is never a tenant beside "acme"', () => {
    for (const owner of ['acme ', ' acme', '\u00a0acme', 'acme\u3000', ' '])
      assert.throws(() => assertOwner(owner), appError('APP_WEBHOOK_OWNER_INVALID', 422), JSON.stringify(owner));
  });

  it('keeps an owner with inner spaces and letters beyond ASCII', () => {
    assert.equal(assertOwner('acme corp'), 'acme corp');
    assert.equal(assertOwner('société'), 'société');
    assert.equal(assertOwner(null), null);
  });
});

describe('assertOwnerFilter: the owner a read filters by', () => {
  it('still names an owner stored before the whitespace and C1 rules', () => {
    assert.equal(assertOwnerFilter('acme '), 'acme ');
    assert.equal(assertOwnerFilter('acme\u0085'), 'acme\u0085');
  });

  it('refuses what no owner ever held: C0, DEL, a lone surrogate, the empty string', () => {
    for (const owner of ['a\u0000', 'a\n', 'a\u007f', '\ud800', ''])
      assert.throws(() => assertOwnerFilter(owner), appError('APP_WEBHOOK_OWNER_INVALID', 422), JSON.stringify(owner));
  });
});

describe('assertDescription', () => {
  it('refuses C1 control characters (CSI U+009B, NEL U+0085) as it refuses C0 ones', () => {
    for (const description of ['\u009b2J', 'line\u0085line', 'a\u009fb', '\u001b[2J'])
      assert.throws(
        () => assertDescription(description),
        appError('APP_WEBHOOK_DESCRIPTION_INVALID', 422),
        JSON.stringify(description),
      );
  });

  it('keeps tabs, line breaks and letters beyond ASCII', () => {
    assert.equal(assertDescription('orders\tof acme\r\nsociété'), 'orders\tof acme\r\nsociété');
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pageNumbers, parsePagination } from '../../../api/hal/pagination.ts';

const limits = { perPage: 25, maxPerPage: 100 };

describe('pagination()', () => {
  it('answers {page, perPage, skip, limit, offset}', () => {
    assert.deepEqual(parsePagination({ page: '3', per_page: '10' }, limits), {
      page: 3,
      perPage: 10,
      skip: 20,
      limit: 10,
      offset: 20,
    });
    assert.deepEqual(parsePagination({}, limits), { page: 1, perPage: 25, skip: 0, limit: 25, offset: 0 });
  });

  it('caps per_page at maxPerPage', () => {
    assert.equal(parsePagination({ per_page: '101' }, limits).perPage, 100);
  });

  it('refuses a page so far that the offset is no longer exact', () => {
    assert.throws(() => parsePagination({ page: '999999999999999', per_page: '100' }, limits), /too far/);
  });

  it('refuses instead of defaulting', () => {
    for (const bad of ['0', '-1', 'x', '1.5', '', ' 2', '1e3']) {
      assert.throws(
        () => parsePagination({ per_page: bad }, limits),
        { code: 'APP_PAGINATION_INVALID', status: 400 },
        bad,
      );
    }
  });
});

describe('page numbers of the links', () => {
  for (const [page, perPage, total, expected] of [
    [1, 10, 0, { first: 1, last: 1 }],
    [1, 10, 10, { first: 1, last: 1 }],
    [1, 10, 11, { first: 1, next: 2, last: 2 }],
    [2, 10, 30, { first: 1, prev: 1, next: 3, last: 3 }],
    [3, 10, 30, { first: 1, prev: 2, last: 3 }],
    [7, 10, 30, { first: 1, prev: 3, last: 3 }],
  ] as const) {
    it(`page ${page} of ${total} by ${perPage}: ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(pageNumbers(page, perPage, total), expected);
    });
  }
});

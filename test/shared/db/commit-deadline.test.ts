import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commitDeadline } from '../../../shared/db/commit-deadline.ts';

describe('commit deadline', () => {
  it('timed out first: the work may not commit', () => {
    const deadline = commitDeadline();
    assert.equal(deadline.expire(), true);
    assert.equal(deadline.expired, true);
    assert.equal(deadline.claimCommit(), false);
  });

  it('committing first: the deadline can no longer pass, and the answer waits for the commit', () => {
    const deadline = commitDeadline();
    assert.equal(deadline.claimCommit(), true);
    assert.equal(deadline.expire(), false);
    assert.equal(deadline.expired, false);
  });
});

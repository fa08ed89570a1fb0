/**
 * The meeting point of a request's deadline and its writes (shared/db/commit-deadline.ts):
 * exactly one of "timed out" and "committing" comes first, and the deadline travels with the
 * request's async scope, so a write claims it without being handed it.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { claimRequestCommit, commitDeadline, unclaimed, withDeadline } from '../../../shared/db/commit-deadline.ts';

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

describe("claimRequestCommit: the request's deadline from its async scope", () => {
  it('claims the deadline of the request it runs in, across awaits', async () => {
    const deadline = commitDeadline();
    await withDeadline(deadline, async () => {
      await new Promise((resolve) => setImmediate(resolve));
      claimRequestCommit();
    });
    assert.equal(deadline.expire(), false, 'claimed: the timeout waits for the commit');
  });

  it('throws 503 APP_REQUEST_TIMEOUT once the deadline has passed', () => {
    const deadline = commitDeadline();
    deadline.expire();
    assert.throws(
      () => withDeadline(deadline, () => claimRequestCommit()),
      (error: { status?: number; code?: string }) => error.status === 503 && error.code === 'APP_REQUEST_TIMEOUT',
    );
  });

  it('does nothing outside a request (the worker, the CLI) or in unclaimed work', () => {
    claimRequestCommit();
    const deadline = commitDeadline();
    deadline.expire();
    withDeadline(deadline, () => unclaimed(() => claimRequestCommit()));
    const running = commitDeadline();
    withDeadline(running, () => unclaimed(() => claimRequestCommit()));
    assert.equal(running.expire(), true, 'unclaimed work left the deadline free to pass');
  });
});

/**
 * What a delivery's last error is (shared/webhooks/deliveries/record.ts `inCurrentSeries`), the one
 * rule REST, GraphQL, the console and the CLI show it by: the error of its current series of
 * attempts. A delivery queued again (retry, resend, replay) keeps the error its previous series
 * ended with on its row until its next attempt, and that error is history, not its state.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OPERATOR } from '../../../../shared/access/actor.ts';
import { ALL_TENANTS, tenantScope } from '../../../../shared/access/tenant-scope.ts';
import { recoverDeliveries } from '../../../../shared/webhooks/deliveries/recover.ts';
import {
  inCurrentSeries,
  queuedAgainByAsRead,
  SOMEONE_ELSE,
  summary,
  type DeliveryRow,
} from '../../../../shared/webhooks/deliveries/record.ts';
import { showDelivery } from '../../../../shared/webhooks/deliveries/show.ts';
import { markUnsent } from '../../../../shared/webhooks/deliveries/store.ts';
import { createTestDatabase } from '../../../helpers/database.ts';
import { endpoint, harness, send } from '../../../worker/helpers.ts';

/** [what, status, attempts, attempts_before, whether its last error is its current series'] */
const RULES: [string, DeliveryRow['status'], number, number | null, boolean][] = [
  ['never queued again, pending after a failed attempt', 'pending', 1, null, true],
  ['never queued again, dead', 'dead', 2, null, true],
  ['queued again, no attempt since (pending)', 'pending', 2, 2, false],
  ['queued again, its attempt under way (running)', 'running', 2, 2, false],
  ['queued again, an attempt since (pending its retry)', 'pending', 3, 2, true],
  ['queued again, dead again without an attempt (its endpoint disabled meanwhile)', 'dead', 2, 2, true],
  ['resent after it was delivered, done again', 'done', 2, 1, true],
];

describe("a delivery's last error is its current series'", () => {
  for (const [what, status, attempts, before, current] of RULES)
    it(`${what}: ${current ? 'its last error' : 'no last error, the earlier one is history'}`, () => {
      assert.equal(inCurrentSeries({ status, attempts, attempts_before: before }), current);
      const row = {
        id: 'msg_1',
        status,
        queue: 'default',
        endpoint_id: 'ep_1',
        event_id: 'evt_1',
        event_type: 'a.b',
        owner: null,
        attempts,
        next_attempt_at: null,
        parked_at: null,
        last_status: 500,
        last_error: 'attempts exhausted (2 of 2); last: receiver answered 500',
        queued_again_at: before === null ? null : new Date(),
        queued_again_by: before === null ? null : 'operator',
        attempts_before: before,
        created_at: new Date(),
        updated_at: new Date(),
        completed_at: null,
      };
      assert.equal(summary(row, OPERATOR).lastError, current ? row.last_error : null);
      assert.equal(summary(row, OPERATOR).lastStatus, current ? 500 : null);
      assert.equal(summary(row, OPERATOR).attemptsBefore, before ?? 0);
    });

  it('a replay of dead deliveries says when, by whom and after how many attempts; the reason it died is not its state', async () => {
    const db = await createTestDatabase();
    const h = harness(db);
    const { id: endpointId, owner } = await endpoint(h, 'https://hooks.example.com/replayed');
    const [id] = await send(h, { owner });
    assert.ok(await markUnsent(h.sql, id, 'not sent: the signing secret could not be read'));
    assert.equal((await showDelivery(h, OPERATOR, id)).lastError, 'not sent: the signing secret could not be read');
    const replayed = await recoverDeliveries(h, OPERATOR, endpointId, { since: new Date(Date.now() - 3_600_000) });
    assert.deepEqual(replayed.deliveryIds, [id]);
    const shown = await showDelivery(h, OPERATOR, id);
    assert.equal(shown.status, 'pending');
    assert.equal(shown.lastError, null);
    assert.equal(shown.queuedAgainBy, 'operator');
    assert.equal(shown.attemptsBefore, 0);
    assert.ok(shown.queuedAgainAt instanceof Date);
  });
});

/** [recorded queuer, reader id, reader's tenant (null: every tenant), what the reader is shown] */
const QUEUERS: [string | null, string, string | null, string | null][] = [
  ['usr_admin', 'usr_other_admin', null, 'usr_admin'],
  ['operator', 'tok_admin', null, 'operator'],
  ['usr_admin', 'portal:acme', 'acme', SOMEONE_ELSE],
  ['operator', 'usr_member', 'acme', SOMEONE_ELSE],
  ['tok_member', 'portal:acme', 'acme', SOMEONE_ELSE],
  ['tok_member', 'tok_member', 'acme', 'tok_member'],
  ['usr_member', 'usr_member', 'acme', 'usr_member'],
  ['portal:acme', 'usr_member', 'acme', 'portal:acme'],
  ['portal:acme', 'portal:acme', 'acme', 'portal:acme'],
  [null, 'portal:acme', 'acme', null],
];

describe('who queued a delivery again, as its reader may see it', () => {
  for (const [recorded, id, owner, shown] of QUEUERS)
    it(`${recorded} read by ${id}${owner === null ? ' (every tenant)' : ` (tenant ${owner})`}: ${shown}`, () => {
      const reader = { id, scope: owner === null ? ALL_TENANTS : tenantScope(owner) };
      assert.equal(queuedAgainByAsRead(recorded, reader), shown);
    });
});

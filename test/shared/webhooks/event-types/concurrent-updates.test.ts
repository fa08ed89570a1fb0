/**
 * Two admins changing one event type at once: one gives it a new schema, the other new examples
 * checked against the schema it read. Held, not timed: the schema change is made in a
 * transaction the test keeps open until the examples change waits on the type's row. The
 * examples must then be checked against the schema that is stored when they are, so a type
 * never keeps examples its schema refuses.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OPERATOR } from '../../../../shared/access/actor.ts';
import type { Sql } from '../../../../shared/db/connect.ts';
import { transaction } from '../../../../shared/db/transaction.ts';
import { createEventType, showEventType, updateEventType } from '../../../../shared/webhooks/event-types/catalog.ts';
import { createTestDatabase } from '../../../helpers/database.ts';
import { waitingOn } from '../../../helpers/insert-hold.ts';
import { eventually } from '../../../helpers/poll.ts';
import { appError } from '../fixtures.ts';

const db = await createTestDatabase();
const deps = { sql: db.sql, log: db.log };

const NUMBER = { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] };
const TEXT = { type: 'object', properties: { amount: { type: 'string' } }, required: ['amount'] };

describe('an event type changed by two admins at once', () => {
  it('examples checked against a schema replaced meanwhile are refused, not kept beside it', async () => {
    await createEventType(deps, OPERATOR, { name: 'invoice.due', schema: NUMBER, examples: [{ amount: 1 }] });
    let examples: Promise<unknown> | undefined;
    await transaction(db.sql, async (tx) => {
      // the first admin's new schema, not committed yet (the test holds its transaction)
      await updateEventType({ sql: tx as unknown as Sql, log: db.log }, OPERATOR, 'invoice.due', {
        schema: TEXT,
        examples: [{ amount: 'one' }],
      });
      // the second admin's examples match the schema it can read: the one still committed
      examples = updateEventType(deps, OPERATOR, 'invoice.due', { examples: [{ amount: 2 }] });
      examples.catch(() => undefined); // awaited below, once the first change has committed
      await eventually(() => waitingOn(db.sql, ['transactionid', 'tuple']), 10_000, 'the second change to wait');
    });
    await assert.rejects(examples as Promise<unknown>, appError('APP_WEBHOOK_EVENT_TYPE_INVALID', 422));
    const stored = await showEventType(deps, OPERATOR, 'invoice.due');
    assert.deepEqual(stored.schema, TEXT);
    assert.deepEqual(stored.examples, [{ amount: 'one' }], 'the examples kept match the schema kept');
  });
});

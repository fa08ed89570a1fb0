import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase } from '../../../helpers/database.ts';
import { appError } from '../fixtures.ts';
import { createEventType, updateEventType } from '../../../../shared/webhooks/event-types/catalog.ts';
import { OPERATOR } from '../../../../shared/access/actor.ts';

const db = await createTestDatabase();
const deps = { sql: db.sql, log: db.log };

describe('event-type descriptions', () => {
  it('refuse control characters, C1 (CSI U+009B, NEL U+0085) as C0 (ESC), and keep tabs and line breaks', async () => {
    for (const description of ['paid\u009b2J', 'paid\u0085', 'paid\u001b[2J']) {
      await assert.rejects(
        createEventType(deps, OPERATOR, { name: 'invoice.paid', description }),
        appError('APP_WEBHOOK_EVENT_TYPE_INVALID', 422),
        JSON.stringify(description),
      );
    }
    const type = await createEventType(deps, OPERATOR, {
      name: 'invoice.paid',
      description: 'paid\tin full\r\nor not',
    });
    assert.equal(type.description, 'paid\tin full\r\nor not');
    await assert.rejects(
      updateEventType(deps, OPERATOR, 'invoice.paid', { description: 'paid\u009b2J' }),
      appError('APP_WEBHOOK_EVENT_TYPE_INVALID', 422),
    );
  });
});

/**
 * Model changes as events: a model declaring `webhooks.events` emits
 * `<model>.created|updated|deleted` with the record's HAL representation as data and its owner as
 * the event's owner, delivered to a real receiver by the real worker; the write, the event, its
 * deliveries and jobs commit together: a write that fails emits nothing, an emit that fails
 * undoes the write.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { defineModel, STRING, type ModelDeclaration } from '../../../../api/model-framework/data/types.ts';
import { compileShape } from '../../../../api/model-framework/data/shape.ts';
import { createEventType } from '../../../../shared/webhooks/event-types/index.ts';
import { startApp, testDatabase, type TestApp } from '../../fixtures/app.ts';
import { MODELS } from '../../fixtures/models.ts';
import { startReceiver } from '../../../worker/delivery/receiver.ts';
import { endpoint, harness, runOnce } from '../../../worker/helpers.ts';
import { OPERATOR } from '../../../../shared/access/actor.ts';

const SupportTicket: ModelDeclaration = defineModel({
  name: 'SupportTicket',
  table: 'fixture_support_tickets',
  schema: { subject: { type: STRING, required: true }, tenant: { type: STRING } },
  webhooks: { events: ['created', 'updated', 'deleted'], owner: 'tenant' },
});

let app: TestApp;
const headers = { 'X-Test-Principal': 'admin-1;admin', 'content-type': 'application/json', accept: 'application/json' };
const call = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${app.api}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
};
const events = async () =>
  await app.db.sql<
    { type: string; owner: string | null; payload: Record<string, unknown> }[]
  >`select type, owner, payload from app_events order by id`;

before(async () => {
  const db = await testDatabase();
  await db.sql`create table fixture_support_tickets (id bigint generated always as identity primary key, external_id text not null unique, subject text not null unique, tenant text)`;
  app = await startApp({
    models: [...MODELS, SupportTicket],
    routes: { 'crud support-tickets': { scope: 'api/v1' } },
    flags: { webhooks: { allowHttp: true, allowPrivate: true } },
  });
});

describe('model changes as events', () => {
  it('created, updated and deleted are emitted with the HAL record as data and the record owner as the event owner, and delivered', async () => {
    const receiver = await startReceiver((_req, res) => res.end('ok'));
    const h = harness(app.db, { webhooks: { allowHttp: true, allowPrivate: true } });
    await endpoint(h, `${receiver.origin}/hook`, { owner: 'acme', events: ['support_ticket.*'] });
    try {
      const made = await call('POST', '/support-tickets', { subject: 'printer on fire', tenant: 'acme' });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      await call('PATCH', `/support-tickets/${made.body.externalId}`, { subject: 'printer still on fire' });
      assert.equal((await call('DELETE', `/support-tickets/${made.body.externalId}`)).status, 204);
      const emitted = await events();
      assert.deepEqual(
        emitted.map((event) => event.type),
        ['support_ticket.created', 'support_ticket.updated', 'support_ticket.deleted'],
      );
      assert.ok(emitted.every((event) => event.owner === 'acme'));
      assert.equal(emitted[0].payload.externalId, made.body.externalId);
      assert.equal(emitted[0].payload.subject, 'printer on fire');
      assert.equal(
        (emitted[0].payload._links as { self: { href: string } }).self.href,
        `/api/v1/support-tickets/${made.body.externalId}`,
      );
      assert.equal(emitted[1].payload.subject, 'printer still on fire');
      await runOnce(h);
      assert.deepEqual(
        receiver.requests.map((request) => JSON.parse(request.body.toString()).type),
        ['support_ticket.created', 'support_ticket.updated', 'support_ticket.deleted'],
      );
    } finally {
      await receiver.close();
    }
  });

  it('an update naming no field changes nothing and emits no updated event', async () => {
    const made = await call('POST', '/support-tickets', { subject: 'unchanged', tenant: 'acme' });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const before = (await events()).length;
    const answer = await call('PATCH', `/support-tickets/${made.body.externalId}`, {});
    assert.equal(answer.status, 200);
    assert.equal(answer.body.subject, 'unchanged');
    assert.equal((await events()).length, before);
  });

  it('a write that fails emits nothing; an emit that fails (data refused by the catalog) undoes the write', async () => {
    const before = (await events()).length;
    await call('POST', '/support-tickets', { subject: 'duplicate', tenant: 'acme' });
    const duplicate = await call('POST', '/support-tickets', { subject: 'duplicate', tenant: 'acme' });
    assert.equal(duplicate.status, 409);
    assert.equal((await events()).length, before + 1, 'only the first write emitted');
    await createEventType({ sql: app.db.sql, log: app.db.log }, OPERATOR, {
      name: 'support_ticket.created',
      schema: { type: 'object', required: ['priority'] },
    });
    const refused = await call('POST', '/support-tickets', { subject: 'no priority', tenant: 'acme' });
    assert.equal(refused.status, 422);
    assert.equal(refused.body.code, 'APP_WEBHOOK_EVENT_DATA_INVALID');
    const rows = await app.db.sql`select 1 from fixture_support_tickets where subject = 'no priority'`;
    assert.equal(rows.length, 0, 'the record was not written');
    assert.equal((await events()).length, before + 1);
  });

  it('a declaration with unknown changes or a bad owner field is refused at boot', () => {
    const { problems } = compileShape({ ...SupportTicket, webhooks: { events: ['archived' as never], owner: 'nope' } });
    assert.equal(problems.length, 2, problems.join('; '));
  });
});

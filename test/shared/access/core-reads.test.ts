/**
 * Reads are decided by the permission table in the core, as changes are: every core read that
 * takes a caller asks its row (`webhooks.read`, `users.read`, `tenants.read`, `tokens.read`)
 * before it reads anything, so no face (REST, GraphQL, the console, the CLI, `ctx.webhooks`)
 * needs a rule of its own for it. A caller whose grant is in no row (a role the table does not
 * know) is refused 403 `APP_FORBIDDEN` naming the row, even for a record that exists and is in
 * its tenant, where a caller the row lists is answered.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { actorOf, OPERATOR, type Actor } from '../../../shared/access/actor.ts';
import type { Operation } from '../../../shared/access/permissions.ts';
import { firstOwners, listTenants } from '../../../shared/accounts/tenants.ts';
import { listUsers } from '../../../shared/accounts/users.ts';
import { listTokensFor } from '../../../shared/tokens/api-tokens.ts';
import { countListedDeliveries } from '../../../shared/webhooks/deliveries/counts.ts';
import { endpointHealth, queueFigures } from '../../../shared/webhooks/deliveries/health.ts';
import { listDeliveries } from '../../../shared/webhooks/deliveries/list.ts';
import { deliverySeries } from '../../../shared/webhooks/deliveries/series.ts';
import { showDelivery } from '../../../shared/webhooks/deliveries/show.ts';
import type { WebhookDeps } from '../../../shared/webhooks/deps.ts';
import { endpointsInScope } from '../../../shared/webhooks/endpoints/batch.ts';
import { endpointStatuses, listEndpoints } from '../../../shared/webhooks/endpoints/list.ts';
import { registerEndpoint } from '../../../shared/webhooks/endpoints/register.ts';
import { showEndpoint } from '../../../shared/webhooks/endpoints/show.ts';
import { listEventTypes, showEventType, createEventType } from '../../../shared/webhooks/event-types/catalog.ts';
import { sendToEndpoint } from '../../../shared/webhooks/events/emit.ts';
import { listEvents } from '../../../shared/webhooks/events/list.ts';
import { showEvent } from '../../../shared/webhooks/events/show.ts';
import { recentEventsOfEndpoint } from '../../../shared/webhooks/filters/try.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { tenantActor } from '../../helpers/actors.ts';
import { depsOf } from '../webhooks/fixtures.ts';

const OWNER = 'core-reads';

/** A caller of tenant OWNER whose role is in no row of the table. */
const unlisted: Actor = actorOf({ id: 'auditor', roles: ['auditor'], owner: OWNER });

describe('every core read asks the permission table before it reads', () => {
  let db: TestDatabase;
  let deps: WebhookDeps;
  const made = { endpoint: '', delivery: '', event: '' };

  before(async () => {
    db = await createTestDatabase();
    deps = depsOf(db, { webhooks: { allowHttp: true, allowPrivate: true } });
    const endpoint = await registerEndpoint(deps, OPERATOR, {
      url: 'http://127.0.0.1:9/core-reads',
      events: ['*'],
      owner: OWNER,
      headers: { 'X-Key': 'core-reads-value' },
    });
    const delivery = await sendToEndpoint(deps, OPERATOR, endpoint.id, 'order.created', { id: 1 });
    await createEventType(deps, OPERATOR, { name: 'order.created' });
    Object.assign(made, { endpoint: endpoint.id, delivery: delivery.id, event: delivery.eventId });
  });

  const page = { page: 1, perPage: 10 };
  /** Each read: its row, a caller the row lists, and the call. */
  const READS: [string, Operation, () => Actor, (actor: Actor) => Promise<unknown>][] = [
    ['listEndpoints', 'webhooks.read', () => tenantActor(OWNER, 'viewer'), (a) => listEndpoints(deps, a)],
    ['endpointStatuses', 'webhooks.read', () => tenantActor(OWNER, 'viewer'), (a) => endpointStatuses(deps, a)],
    ['showEndpoint', 'webhooks.read', () => tenantActor(OWNER, 'viewer'), (a) => showEndpoint(deps, a, made.endpoint)],
    [
      'endpointsInScope',
      'webhooks.read',
      () => tenantActor(OWNER, 'viewer'),
      (a) => endpointsInScope(deps, a, [made.endpoint]),
    ],
    ['listDeliveries', 'webhooks.read', () => tenantActor(OWNER, 'viewer'), (a) => listDeliveries(deps, a, page)],
    [
      'countListedDeliveries',
      'webhooks.read',
      () => tenantActor(OWNER, 'viewer'),
      (a) => countListedDeliveries(deps, a, {}),
    ],
    ['showDelivery', 'webhooks.read', () => tenantActor(OWNER, 'viewer'), (a) => showDelivery(deps, a, made.delivery)],
    [
      'endpointHealth',
      'webhooks.read',
      () => tenantActor(OWNER, 'viewer'),
      (a) => endpointHealth(deps, a, [made.endpoint]),
    ],
    ['queueFigures', 'webhooks.read', () => tenantActor(OWNER, 'viewer'), (a) => queueFigures(deps, a)],
    [
      'deliverySeries',
      'webhooks.read',
      () => tenantActor(OWNER, 'viewer'),
      (a) => deliverySeries(deps, a, { window: 'hour' }),
    ],
    ['listEvents', 'webhooks.read', () => tenantActor(OWNER, 'viewer'), (a) => listEvents(deps, a, page)],
    ['showEvent', 'webhooks.read', () => tenantActor(OWNER, 'viewer'), (a) => showEvent(deps, a, made.event)],
    [
      'recentEventsOfEndpoint',
      'webhooks.read',
      () => tenantActor(OWNER, 'viewer'),
      (a) => recentEventsOfEndpoint(deps, a, made.endpoint),
    ],
    ['listEventTypes', 'webhooks.read', () => tenantActor(OWNER, 'viewer'), (a) => listEventTypes(deps, a)],
    [
      'showEventType',
      'webhooks.read',
      () => tenantActor(OWNER, 'viewer'),
      (a) => showEventType(deps, a, 'order.created'),
    ],
    ['listUsers', 'users.read', () => OPERATOR, (a) => listUsers(deps, a, page)],
    ['listTenants', 'tenants.read', () => OPERATOR, (a) => listTenants(deps, a, page)],
    ['firstOwners', 'tenants.read', () => OPERATOR, (a) => firstOwners(deps, a)],
    ['listTokensFor', 'tokens.read', () => tenantActor(OWNER, 'viewer'), (a) => listTokensFor(deps, a, page)],
  ];

  for (const [name, operation, allowed, read] of READS) {
    it(`${name}: a grant ${operation} does not list is refused 403 APP_FORBIDDEN; one it lists is answered`, async () => {
      await read(allowed());
      await assert.rejects(read(unlisted), (error: { status?: number; code?: string; data?: unknown }) => {
        assert.deepEqual(
          { status: error.status, code: error.code, data: error.data },
          { status: 403, code: 'APP_FORBIDDEN', data: { operation, role: 'auditor' } },
        );
        return true;
      });
    });
  }

  it('endpoint reads answer header values null unless the caller asks and may reveal them; a viewer who asks is refused', async () => {
    const reads: [string, (actor: Actor, revealHeaders?: boolean) => Promise<unknown>][] = [
      [
        'showEndpoint',
        async (a, revealHeaders) => (await showEndpoint(deps, a, made.endpoint, { revealHeaders })).headers,
      ],
      [
        'listEndpoints',
        async (a, revealHeaders) => (await listEndpoints(deps, a, { revealHeaders })).records[0].headers,
      ],
      [
        'endpointsInScope',
        async (a, revealHeaders) =>
          (await endpointsInScope(deps, a, [made.endpoint], { revealHeaders })).get(made.endpoint)?.headers,
      ],
      ['endpointStatuses', async (a) => (await endpointStatuses(deps, a))[0].headers],
    ];
    const [viewer, member] = [tenantActor(OWNER, 'viewer'), tenantActor(OWNER, 'member')];
    for (const [name, read] of reads) {
      for (const actor of [viewer, member, OPERATOR])
        assert.deepEqual(await read(actor), { 'X-Key': null }, `${name}: not asked, not shown`);
      if (name === 'endpointStatuses') continue;
      assert.deepEqual(await read(member, true), { 'X-Key': 'core-reads-value' }, `${name}: asked by a member`);
      await assert.rejects(read(viewer, true), { status: 403, code: 'APP_FORBIDDEN' }, `${name}: asked by a viewer`);
    }
  });
});

/**
 * The webhook API is the product's own: mounted by the server from controller factories, not
 * discovered among the application's controllers, and an application declaration that would
 * hide it stops the boot.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withWebhooksApi } from '../../../api/webhooks-api/mount.ts';
import { WEBHOOKS_API_ROUTES } from '../../../api/webhooks-api/routes.ts';
import { RouteTableError } from '../../../api/model-framework/routing/table.ts';
import { discoverApi } from '../../../api/model-framework/routing/discover.ts';
import type { WebhookDeps } from '../../../shared/webhooks/deps.ts';

const deps = {} as WebhookDeps; // the factories only keep it; no action runs here

describe('mounting the webhook API', () => {
  it("adds every webhook route and its four controllers beside the application's own", () => {
    const mine = { ping: async () => undefined };
    const definition = withWebhooksApi(
      { routes: { 'GET /ping': { controller: 'status.ping' } }, controllers: { status: mine } },
      deps,
    );
    assert.deepEqual(
      Object.keys(definition.routes ?? {}).sort(),
      [...Object.keys(WEBHOOKS_API_ROUTES), 'GET /ping'].sort(),
    );
    assert.deepEqual(Object.keys(definition.controllers ?? {}).sort(), [
      'deliveries',
      'eventTypes',
      'events',
      'status',
      'webhooks',
    ]);
    assert.equal(definition.controllers?.status, mine);
    for (const name of ['webhooks', 'events', 'deliveries', 'eventTypes']) {
      for (const [action, handler] of Object.entries(definition.controllers?.[name] ?? {}))
        assert.equal(typeof handler, 'function', `${name}.${action}`);
    }
  });

  it("is not among the application's discovered declarations", async () => {
    const discovered = await discoverApi();
    assert.equal(Object.keys(discovered.routes ?? {}).filter((key) => key in WEBHOOKS_API_ROUTES).length, 0);
    for (const name of ['webhooks', 'events', 'deliveries']) assert.equal(discovered.controllers?.[name], undefined);
  });

  it('refuses an application route or controller that would hide it, naming each', () => {
    assert.throws(
      () => withWebhooksApi({ routes: { 'crud webhooks': {} }, controllers: { events: {} } }, deps),
      (error: unknown) =>
        error instanceof RouteTableError &&
        error.problems.some((problem) => problem.includes('"crud webhooks"')) &&
        error.problems.some((problem) => problem.includes('"events"')),
    );
  });
});

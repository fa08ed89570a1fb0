/**
 * The permission matrix: for every operation of the permission table
 * (shared/access/permissions.ts), every grant (admin, member, viewer, a portal member and a
 * portal viewer, all of tenant acme but the admin) and every face that offers it (REST, GraphQL,
 * a console form), the ones the table lists succeed and change what they act on; the others get
 * 403 `APP_FORBIDDEN` and change nothing (read back from the database). The cases come from the
 * table, and the last tests check that every mutating REST route, GraphQL mutation and console
 * form is asked by one, so a new operation or route without a rule fails here.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { compileRoutes } from '../../../api/model-framework/routing/table.ts';
import { consoleRouter } from '../../../api/console/plug.ts';
import type { ConsoleDeps } from '../../../api/console/context.ts';
import { TOKENS_API_ROUTES } from '../../../api/tokens-api/routes.ts';
import { WEBHOOKS_API_ROUTES } from '../../../api/webhooks-api/routes.ts';
import { OPERATOR } from '../../../shared/access/actor.ts';
import { OPERATIONS, PERMISSIONS } from '../../../shared/access/permissions.ts';
import { registerEndpoint } from '../../../shared/webhooks/endpoints/index.ts';
import { depsOf } from '../../shared/webhooks/fixtures.ts';
import { startAccounts } from '../accounts/helpers.ts';
import { CASES, OWNER, RESERVED_TYPE_CASES, signIn, WHO, type Caller, type Face, type Who } from './faces.ts';

const FLAGS = { webhooks: { allowHttp: true, allowPrivate: true } };
const app = await startAccounts(FLAGS);
const webhooks = depsOf(app.db, FLAGS);
const callers = new Map<Who, Caller>();

before(async () => {
  for (const who of WHO) callers.set(who, await signIn(app.base, app.accounts, who));
  // an endpoint of acme for every event, there before any emit (emits read through the web process's endpoint cache)
  await registerEndpoint(webhooks, OPERATOR, { url: 'http://127.0.0.1:9/standing', events: ['*'], owner: OWNER });
});

describe('every operation is decided by the permission table, on every face', () => {
  for (const operation of OPERATIONS) {
    const { prepare, readBack, faces } = CASES[operation];
    for (const [face, ask] of Object.entries(faces) as [Face, NonNullable<(typeof faces)[Face]>][]) {
      for (const who of WHO) {
        const allowed = (PERMISSIONS[operation] as readonly string[]).includes(who);
        it(`${operation} through ${face}, by a ${who}: ${allowed ? 'done' : '403 APP_FORBIDDEN, nothing changes'}`, async () => {
          const fixture = { webhooks, accounts: app.accounts, caller: callers.get(who) as Caller };
          const target = await prepare(fixture);
          const before = await readBack?.(fixture, target);
          const outcome = await ask.run(fixture, target);
          const after = await readBack?.(fixture, target);
          if (allowed) {
            assert.ok(outcome.status < 400, `answered ${outcome.status} ${outcome.code ?? ''}`);
            if (readBack) assert.notDeepEqual(after, before, 'the change was made');
          } else {
            assert.deepEqual(outcome, { status: 403, code: 'APP_FORBIDDEN' });
            if (readBack) assert.deepEqual(after, before, 'nothing changed');
          }
        });
      }
    }
  }
});

describe("the service's own event types (app.) are an admin's alone, on every face", () => {
  for (const [operation, { prepare, readBack, faces }] of Object.entries(RESERVED_TYPE_CASES)) {
    for (const [face, ask] of Object.entries(faces) as [Face, NonNullable<(typeof faces)[Face]>][]) {
      for (const who of WHO) {
        const allowed = (PERMISSIONS[operation as keyof typeof PERMISSIONS] as readonly string[]).includes(who);
        const expected = !allowed
          ? '403 APP_FORBIDDEN'
          : who === 'admin'
            ? 'done'
            : '422 APP_WEBHOOK_EVENT_TYPE_RESERVED';
        it(`${operation} of an app. type through ${face}, by a ${who}: ${expected}`, async () => {
          const fixture = { webhooks, accounts: app.accounts, caller: callers.get(who) as Caller };
          const target = await prepare(fixture);
          const before = await readBack?.(fixture, target);
          const outcome = await ask.run(fixture, target);
          const after = await readBack?.(fixture, target);
          if (!allowed) assert.deepEqual(outcome, { status: 403, code: 'APP_FORBIDDEN' });
          else if (who === 'admin') assert.ok(outcome.status < 400, `answered ${outcome.status} ${outcome.code ?? ''}`);
          // the console shows its form again with the reason, its code in `data-code`
          else assert.deepEqual(outcome, { status: 422, code: 'APP_WEBHOOK_EVENT_TYPE_RESERVED' });
          if (who !== 'admin') assert.deepEqual(after, before, 'nothing was written');
        });
      }
    }
  }
});

describe('no way in without a rule', () => {
  const asked = (pick: (ask: { route?: string; form?: string }) => string | undefined) =>
    new Set(
      Object.values(CASES).flatMap((kase) =>
        Object.values(kase.faces)
          .map((ask) => pick(ask as { route?: string; form?: string }))
          .filter(Boolean),
      ),
    );

  it('every operation of the table has a case with a face', () => {
    for (const operation of OPERATIONS) assert.ok(Object.keys(CASES[operation]?.faces ?? {}).length > 0, operation);
  });

  it('every mutating route of the webhook and token APIs is asked by a case', () => {
    const routes = [...compileRoutes(WEBHOOKS_API_ROUTES).routes, ...compileRoutes(TOKENS_API_ROUTES).routes];
    const mutating = routes.filter((route) => route.method !== 'GET').map((route) => `${route.method} ${route.path}`);
    assert.ok(mutating.length >= 10, mutating.join(', '));
    const covered = asked((ask) => ask.route);
    assert.deepEqual(
      mutating.filter((route) => !covered.has(route)),
      [],
    );
  });

  it('every GraphQL mutation is asked by a case', () => {
    const fields = Object.keys(app.web.graphql?.schema?.getMutationType()?.getFields() ?? {});
    assert.ok(fields.length >= 10, fields.join(', '));
    const covered = new Set(Object.values(CASES).map((kase) => kase.faces.graphql?.field));
    assert.deepEqual(
      fields.filter((field) => !covered.has(field)),
      [],
    );
  });

  it('every console form is asked by a case (but the portal link, which signs in)', () => {
    const router = consoleRouter({} as ConsoleDeps);
    const forms = router.stack.filter((layer) => layer.methods.includes('POST')).map((layer) => `POST ${layer.path}`);
    assert.ok(forms.length >= 10, forms.join(', '));
    const covered = asked((ask) => ask.form);
    assert.deepEqual(
      forms.filter((path) => !covered.has(path) && path !== 'POST /portal'),
      [],
    );
  });
});

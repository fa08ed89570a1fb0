/**
 * The actor and the permission table: what a principal becomes for the core, and how the table
 * decides (every face's refusals are tested in test/api/access/matrix.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ANONYMOUS,
  actorOf,
  allows,
  authorize,
  grantOf,
  isRoleRefusal,
  OPERATOR,
  principalMay,
} from '../../../shared/access/actor.ts';
import { GRANTS, OPERATION_TEXT, OPERATIONS, PERMISSIONS, rolesFor } from '../../../shared/access/permissions.ts';
import { inScope } from '../../../shared/access/tenant-scope.ts';
import { principalOfPortal, principalOfUser } from '../../../shared/tokens/principal.ts';

const code = (expected: string) => (error: unknown) => (error as { code?: string }).code === expected;

describe('actor of a principal', () => {
  it('admins reach every tenant, members and viewers exactly their owner, anyone else nothing', () => {
    assert.deepEqual(actorOf({ id: 'a', roles: ['admin'] }).scope, { kind: 'all' });
    assert.deepEqual(actorOf({ id: 'm', roles: ['member'], owner: 'acme' }).scope, { kind: 'tenant', owner: 'acme' });
    assert.deepEqual(actorOf({ id: 'v', roles: ['viewer'], owner: 'acme' }).scope, { kind: 'tenant', owner: 'acme' });
    assert.throws(() => actorOf({ id: 'x', roles: ['member'] }), code('APP_FORBIDDEN'));
    assert.throws(() => actorOf(undefined), code('APP_UNAUTHENTICATED'));
  });

  it('a signed-in user acts as its user; a portal session has the portal grant and no user', () => {
    const user = actorOf(
      principalOfUser({ id: 'usr_1', role: 'member', owner: 'acme', email: 'a@example.com' }, 'ses_1'),
    );
    assert.deepEqual(
      { kind: user.kind, userId: user.userId, grant: grantOf(user) },
      { kind: 'user', userId: 'usr_1', grant: 'member' },
    );
    const portal = actorOf(principalOfPortal({ owner: 'acme', role: 'viewer' }, 'ses_2'));
    assert.deepEqual(
      { kind: portal.kind, userId: portal.userId, grant: grantOf(portal) },
      { kind: 'portal', userId: null, grant: 'portal viewer' },
    );
  });

  it('a caller without credentials holds no grant and reaches no owner', () => {
    assert.equal(ANONYMOUS.kind, 'anonymous');
    for (const operation of OPERATIONS) assert.equal(allows(ANONYMOUS, operation), false, operation);
    assert.throws(
      () => authorize(ANONYMOUS, 'events.emit'),
      (error: unknown) => {
        const refused = error as { status: number; code: string; data: Record<string, unknown>; message: string };
        assert.deepEqual(
          { status: refused.status, code: refused.code, data: refused.data },
          { status: 403, code: 'APP_FORBIDDEN', data: { operation: 'events.emit', role: 'anonymous' } },
        );
        assert.match(refused.message, /an anonymous may not emit an event/);
        return true;
      },
    );
    for (const owner of [null, 'acme', ' ']) assert.equal(inScope(ANONYMOUS.scope, owner), false, String(owner));
  });

  it('the operator is an admin of every tenant', () => {
    assert.deepEqual(
      { role: OPERATOR.role, scope: OPERATOR.scope, grant: grantOf(OPERATOR) },
      { role: 'admin', scope: { kind: 'all' }, grant: 'admin' },
    );
    for (const operation of OPERATIONS) assert.equal(allows(OPERATOR, operation), true, operation);
  });
});

describe('the permission table', () => {
  it('names only known grants, and says in words what each operation is', () => {
    for (const operation of OPERATIONS) {
      for (const grant of PERMISSIONS[operation])
        assert.ok((GRANTS as readonly string[]).includes(grant), `${operation}: ${grant}`);
      assert.ok(OPERATION_TEXT[operation].length > 0, operation);
    }
  });

  it('refuses with 403 APP_FORBIDDEN naming the operation and the grant', () => {
    const viewer = actorOf({ id: 'v', roles: ['viewer'], owner: 'acme' });
    assert.throws(
      () => authorize(viewer, 'endpoints.update'),
      (error: unknown) => {
        const refused = error as { status: number; code: string; data: Record<string, unknown>; message: string };
        assert.equal(refused.status, 403);
        assert.equal(refused.code, 'APP_FORBIDDEN');
        assert.deepEqual(refused.data, { operation: 'endpoints.update', role: 'viewer' });
        assert.match(refused.message, /a viewer may not change an endpoint's settings/);
        assert.equal(isRoleRefusal(error), true);
        return true;
      },
    );
    assert.doesNotThrow(() => authorize(viewer, 'webhooks.read'));
  });

  it('a viewer, a portal viewer and a portal session may change nothing but what the table lists', () => {
    const portalMember = actorOf(principalOfPortal({ owner: 'acme', role: 'member' }, 'ses'));
    assert.equal(allows(portalMember, 'endpoints.update'), true);
    assert.equal(allows(portalMember, 'tokens.mint'), false, 'a portal session has no user to own a token');
    for (const role of ['viewer']) {
      const actor = actorOf({ id: role, roles: [role], owner: 'acme' });
      const allowed = OPERATIONS.filter((operation) => allows(actor, operation));
      assert.deepEqual(allowed, ['webhooks.read', 'filters.test', 'tokens.read']);
    }
  });

  it('a route guard admits the roles of every grant of the operation (portal member counts as member)', () => {
    assert.deepEqual(rolesFor('endpoints.update'), ['admin', 'member']);
    assert.deepEqual(rolesFor('webhooks.read'), ['admin', 'member', 'viewer']);
    assert.deepEqual(rolesFor('users.invite'), ['admin']);
  });

  it('links and buttons ask the same table; no principal may nothing', () => {
    assert.equal(principalMay(undefined, 'webhooks.read'), false);
    assert.equal(principalMay({ id: 'x', roles: ['member'] }, 'webhooks.read'), false, 'a member bound to no tenant');
    assert.equal(principalMay({ id: 'v', roles: ['viewer'], owner: 'acme' }, 'endpoints.remove'), false);
    assert.equal(principalMay({ id: 'm', roles: ['member'], owner: 'acme' }, 'endpoints.remove'), true);
  });
});

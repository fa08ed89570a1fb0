/**
 * The owner a write acts for: a caller bound to one tenant writes for it alone, naming another
 * owner is the 404 of a tenant it cannot reach, and a value that cannot name an owner at all is
 * left for the field's own check (a 422 naming the type), as it is for an admin.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ALL_TENANTS, ownerForWrite, tenantScope } from '../../../shared/access/tenant-scope.ts';
import { AppError } from '../../../shared/errors/app-error.ts';
import { assertOwner } from '../../../shared/webhooks/endpoints/fields.ts';

const acme = tenantScope('acme');

/** The code a write's owner ends with: the scope's answer, then the field's check, as the core does it. */
function codeOf(scope: typeof acme, requested: unknown): string {
  try {
    assertOwner(ownerForWrite(scope, requested));
    return 'ok';
  } catch (error) {
    assert.ok(error instanceof AppError);
    return error.code ?? String(error.status);
  }
}

describe('ownerForWrite', () => {
  it('gives a tenant its own owner, left out or named, and refuses another one (null included) with a 404', () => {
    assert.equal(ownerForWrite(acme, undefined), 'acme');
    assert.equal(ownerForWrite(acme, 'acme'), 'acme');
    for (const other of ['globex', '', null]) assert.equal(codeOf(acme, other), 'APP_TENANT_NOT_FOUND');
  });

  it('says in words that records without an owner are out of reach, rather than "owner null"', () => {
    assert.throws(
      () => ownerForWrite(acme, null),
      (error: Error) => error.message === 'records without an owner are not reachable with these credentials',
    );
    assert.throws(() => ownerForWrite(acme, 'globex'), /no owner "globex" is reachable/);
  });

  it('leaves a value of the wrong JSON type to the field check: 422 for a tenant as for an admin', () => {
    for (const value of [5, true, { name: 'acme' }, ['acme']]) {
      assert.equal(codeOf(acme, value), 'APP_WEBHOOK_OWNER_INVALID', JSON.stringify(value));
      assert.equal(codeOf(ALL_TENANTS, value), 'APP_WEBHOOK_OWNER_INVALID', JSON.stringify(value));
    }
  });
});

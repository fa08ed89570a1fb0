/**
 * Passwords are compared in one Unicode spelling (NFKC): the same password typed on another
 * system, which composes accents or not, or with fullwidth forms, signs in.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hash } from '@node-rs/argon2';
import {
  ARGON2_PARAMETERS,
  checkNewPassword,
  hashPassword,
  verifyPassword,
} from '../../../shared/accounts/passwords.ts';

const composed = 'crème brûlée à la carte';
const decomposed = composed.normalize('NFD');

describe('password spelling', () => {
  it('a password set composed verifies typed decomposed, and the other way round', async () => {
    assert.notEqual(composed, decomposed);
    assert.ok(await verifyPassword(await hashPassword(composed), decomposed));
    assert.ok(await verifyPassword(await hashPassword(decomposed), composed));
    assert.ok(await verifyPassword(await hashPassword('ｐａｓｓｗｏｒｄ and more'), 'password and more'));
    assert.equal(await verifyPassword(await hashPassword(composed), 'creme brulee a la carte'), false);
  });

  it('a hash of a password as typed, made before passwords were normalized, still verifies', async () => {
    const typedAsIs = await hash(decomposed, ARGON2_PARAMETERS);
    assert.ok(await verifyPassword(typedAsIs, decomposed));
    assert.equal(await verifyPassword(typedAsIs, 'another password entirely'), false);
  });

  it('a common password in fullwidth letters is the common password it is stored as: refused', () => {
    assert.throws(
      () => checkNewPassword('ｐａｓｓｗｏｒｄ１２３４', { minLength: 10 }),
      (error: { code?: string }) => error.code === 'APP_PASSWORD_WEAK',
    );
  });
});

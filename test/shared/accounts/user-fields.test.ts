import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkEmail, checkName, checkRoleAndOwner } from '../../../shared/accounts/user-fields.ts';
import { isAppError } from '../../../shared/errors/app-error.ts';

const refusedWith = (code: string, field: string) => (error: unknown) =>
  isAppError(error) && error.code === code && error.data?.field === field;

describe('user fields', () => {
  it('a name with a C1 control character (CSI U+009B, NEL U+0085) is refused as one with a C0 one', () => {
    for (const name of ['Ada\u009b2J', 'Ada\u0085Lovelace', 'Ada\u001b[2J'])
      assert.throws(() => checkName(name), refusedWith('APP_USER_FIELD_INVALID', 'name'), JSON.stringify(name));
    assert.equal(checkName('  Ada Lovelace  '), 'Ada Lovelace');
  });

  it('an email with a C1 control character is refused', () => {
    assert.throws(() => checkEmail('ada\u009b@example.com'), refusedWith('APP_USER_FIELD_INVALID', 'email'));
  });

  it('an email is kept in its canonical spelling (NFKC), so a look-alike spelling is the same address', () => {
    assert.equal(checkEmail(' \uff21da\uff20example.com '), 'Ada@example.com');
    assert.equal(checkEmail('rene\u0301@example.com'), 'ren\u00e9@example.com');
  });

  it('an email holding what a mail header reads as structure (a list, an angle address, quoting, a group) is refused', () => {
    for (const email of [
      'x,y@evil.example',
      'x@example.com,y@evil.example',
      'x;y@example.com',
      'Ada <ada@evil.example>@example.com',
      '"a"@example.com',
      'a(comment)@example.com',
      'a@[127.0.0.1]',
      'a\\b@example.com',
      'group:a@example.com',
    ])
      assert.throws(() => checkEmail(email), refusedWith('APP_USER_FIELD_INVALID', 'email'), email);
    assert.equal(checkEmail("o'brien+hooks@example.co.uk"), "o'brien+hooks@example.co.uk");
  });

  it('an email whose domain has an empty label (a trailing dot: the same host) is refused', () => {
    for (const email of ['ada@example.com.', 'ada@example..com', 'ada@.example.com', 'ada@\uff0eexample.com'])
      assert.throws(() => checkEmail(email), refusedWith('APP_USER_FIELD_INVALID', 'email'), email);
  });

  it("a member's owner with leading or trailing whitespace is refused, as for every owner", () => {
    for (const owner of ['acme ', ' acme'])
      assert.throws(
        () => checkRoleAndOwner('member', owner),
        refusedWith('APP_WEBHOOK_OWNER_INVALID', 'owner'),
        JSON.stringify(owner),
      );
    assert.deepEqual(checkRoleAndOwner('member', 'acme'), { role: 'member', owner: 'acme' });
  });
});

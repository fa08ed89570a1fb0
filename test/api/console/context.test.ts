/**
 * A console form's fields are text (api/console/context.ts `field`): a JSON object, or a form's
 * bracketed field that parses as one, is refused with 400 `APP_BODY_INVALID` naming the field,
 * never taken as the text `[object Object]`, nor a 500 where the object's own `toString` is not a
 * function; numbers and booleans of a JSON body are read as their text.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { Browser, startAccounts } from '../accounts/helpers.ts';

describe('console form fields', () => {
  let app: Awaited<ReturnType<typeof startAccounts>>;
  let browser: Browser;
  let csrf: string;

  before(async () => {
    app = await startAccounts();
    const admin = await app.user({ role: 'admin' });
    browser = new Browser(app.base);
    csrf = await browser.signIn(admin.email);
  });

  it('a JSON object in a text field, even one whose toString is not a function, is 400 APP_BODY_INVALID naming the field', async () => {
    for (const email of [{ toString: 0 }, { valueOf: 'x', toString: null }, { a: 'b' }, [{ a: 'b' }]]) {
      const answer = await browser.request('POST', '/users', {
        json: { email, role: 'admin' },
        headers: { 'x-csrf-token': csrf },
      });
      assert.equal(answer.status, 400, `${JSON.stringify(email)}: ${answer.text}`);
      assert.match(answer.headers.get('content-type') ?? '', /application\/problem\+json/);
      assert.equal(answer.body.code, 'APP_BODY_INVALID');
      assert.deepEqual(answer.body.data, { field: 'email' });
    }
  });

  it('a bracketed form field is refused, not minted as the owner "[object Object]"', async () => {
    const answer = await browser.request('POST', '/tokens', {
      form: { _csrf: csrf, name: 'bracketed', role: 'member', 'owner[a]': 'acme' },
      headers: { accept: 'application/json' },
    });
    assert.equal(answer.status, 400, answer.text);
    assert.equal(answer.body.code, 'APP_BODY_INVALID');
    assert.deepEqual(answer.body.data, { field: 'owner' });
    const [{ count }] = await app.db.sql`select count(*)::int as count from app_api_tokens where name = 'bracketed'`;
    assert.equal(count, 0, 'no token was minted');
  });

  it('a number or a boolean of a JSON body is read as its text', async () => {
    const answer = await browser.request('POST', '/users', {
      json: { email: 'numbers@example.com', name: 42, role: 'member', owner: true },
      headers: { 'x-csrf-token': csrf },
    });
    assert.equal(answer.status, 201, answer.text);
    assert.equal(
      answer.body.data?.link?.email ?? answer.body.props?.link?.email,
      'numbers@example.com',
      answer.text.slice(0, 500),
    );
  });
});

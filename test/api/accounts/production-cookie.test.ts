import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPasswordLink } from '../../../shared/accounts/password-links.ts';
import { Browser, PASSWORD, startAccounts } from './helpers.ts';

// production defaults: the cookie is Secure and __Host- prefixed even though TLS ends at a proxy in front
const app = await startAccounts({
  env: 'production',
  secret: 'a production secret of more than thirty-two characters',
});

describe('the session cookie in production', () => {
  it('is __Host-app_session, Secure, HttpOnly, SameSite=Lax, Path=/, without Domain', async () => {
    const user = await app.user();
    const answer = await new Browser(app.base).request('POST', '/login', {
      json: { email: user.email, password: PASSWORD },
    });
    assert.equal(answer.status, 200, answer.text);
    const cookie = answer.headers.getSetCookie().find((line) => line.startsWith('__Host-app_session='));
    assert.ok(cookie, answer.headers.getSetCookie().join(' | '));
    assert.match(cookie, /; secure/i);
    assert.match(cookie, /; httponly/i);
    assert.match(cookie, /; samesite=lax/i);
    assert.match(cookie, /; path=\//i);
    assert.doesNotMatch(cookie, /; domain=/i);
  });
});

describe('the link cookie in production', () => {
  it('is __Secure-app_link (a path of its own rules out __Host-), Secure, HttpOnly, SameSite=Lax, Path=/reset-password', async () => {
    const user = await app.user();
    const { token } = await createPasswordLink(app.accounts, user.id, 'invite');
    const answer = await new Browser(app.base).request('GET', `/reset-password?token=${token}`, { html: true });
    assert.equal(answer.status, 303, answer.text);
    const cookie = answer.headers.getSetCookie().find((line) => line.startsWith('__Secure-app_link='));
    assert.ok(cookie, answer.headers.getSetCookie().join(' | '));
    assert.match(cookie, /; secure/i);
    assert.match(cookie, /; httponly/i);
    assert.match(cookie, /; samesite=lax/i);
    assert.match(cookie, /; path=\/reset-password(;|$)/i);
    assert.doesNotMatch(cookie, /; domain=/i);
  });
});

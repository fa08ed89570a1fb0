/**
 * The console's navigation (api/console/views/layout.eta): each entry is offered to the callers
 * the permission table lets use its page. Emit (`/events/new`) is in it for the roles that may
 * emit (admins, members, portal members), and not for viewers and portal viewers, who get the
 * error page there; Users and Tenants for admins alone.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Browser, startAccounts } from '../../accounts/helpers.ts';

const app = await startAccounts();

/** A browser signed in as a user of `role` (of acme, but for an admin). */
async function userBrowser(role: string): Promise<Browser> {
  const user = await app.user({ role });
  const browser = new Browser(app.base);
  await browser.signIn(user.email);
  return browser;
}

/** The names of the navigation's entries on the overview. */
async function navigation(browser: Browser): Promise<string[]> {
  const page = await browser.request('GET', '/', { html: true });
  assert.equal(page.status, 200, page.text);
  const nav = /<nav aria-label="Console">([\s\S]*?)<\/nav>/.exec(page.text)?.[1] ?? '';
  return [...nav.matchAll(/<a [^>]*>([^<]+)<\/a>/g)].map((found) => found[1]);
}

describe('the navigation offers a page to those who may use it', () => {
  const READ = ['Overview', 'Dead letters', 'Find'];

  it('Emit for admins, members and portal members, each after Find', async () => {
    assert.deepEqual(await navigation(await userBrowser('admin')), [
      ...READ,
      'Emit',
      'Event types',
      'Tokens',
      'Users',
      'Tenants',
    ]);
    assert.deepEqual(await navigation(await userBrowser('member')), [...READ, 'Emit', 'Event types', 'Tokens']);
    assert.deepEqual(await navigation(await app.portal('member')), [...READ, 'Emit', 'Event types']);
  });

  it('no Emit for viewers and portal viewers, whom the emit page refuses', async () => {
    const viewer = await userBrowser('viewer');
    assert.deepEqual(await navigation(viewer), [...READ, 'Event types', 'Tokens']);
    assert.equal((await viewer.request('GET', '/events/new', { html: true })).status, 403);
    const portalViewer = await app.portal('viewer');
    assert.deepEqual(await navigation(portalViewer), [...READ, 'Event types']);
    assert.equal((await portalViewer.request('GET', '/events/new', { html: true })).status, 403);
  });

  it('the Emit entry is marked as the current page on the emit page', async () => {
    const page = await (await userBrowser('member')).request('GET', '/events/new', { html: true });
    assert.match(page.text, /<a href="\/events\/new" aria-current="page">Emit<\/a>/);
  });
});

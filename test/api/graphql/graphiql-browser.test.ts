/**
 * GraphiQL in Chromium, opened with a session as the console's Account page opens it: its first
 * request (the schema's introspection, sent by the page itself) passes the CSRF check, since the
 * page sends the session's `X-CSRF-Token` (docs/graphql.md "GraphiQL").
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser as Chromium } from 'playwright-core';
import { chromiumMissing, launch } from '../console/chromium.ts';
import { PASSWORD, startAccounts } from '../accounts/helpers.ts';

const skip = chromiumMissing();

describe('GraphiQL in Chromium with a session', { skip }, () => {
  let chromium: Chromium;
  before(async () => {
    chromium = await launch();
  });
  after(() => chromium?.close());

  it("sends the session's CSRF token: its introspection is answered 200", async () => {
    const app = await startAccounts({ env: 'development' });
    const user = await app.user({ role: 'admin' });
    const context = await chromium.newContext();
    const page = await context.newPage();
    await page.goto(`${app.base}/login?next=/_app/gql`);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(PASSWORD);
    const first = page.waitForResponse(
      (response) => response.url() === `${app.base}/_app/gql` && response.request().method() === 'POST',
      { timeout: 20_000 },
    );
    await page.getByRole('button', { name: 'Sign in' }).click();
    const answer = await first;
    assert.equal(answer.status(), 200, await answer.text());
    assert.ok(answer.request().headers()['x-csrf-token'], 'the request carries the token');
    await context.close();
  });
});

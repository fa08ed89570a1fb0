/**
 * A refusal by the role guard of the product's own routes (api/middleware/role-guard.ts) is the
 * core's refusal of the route's operation (shared/access/actor.ts `authorize`): the same message
 * and `data: {operation, role}` as through GraphQL; a caller without credentials keeps the
 * guard's 401.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { OPERATION_TEXT } from '../../../shared/access/permissions.ts';
import { Browser, startAccounts } from '../accounts/helpers.ts';
import { OWNER, signIn, type Caller } from './faces.ts';

const app = await startAccounts({ webhooks: { allowHttp: true, allowPrivate: true } });
let viewer: Caller;
let portalViewer: Caller;

/** The problem of a REST request, as its message and data. */
async function restRefusal(caller: Caller, method: string, path: string, json: unknown) {
  const answer = await caller.browser.request(method, path, { json, headers: { 'x-csrf-token': caller.csrf } });
  assert.equal(answer.status, 403, answer.text);
  assert.equal(answer.body.code, 'APP_FORBIDDEN');
  return { message: answer.body.detail, data: answer.body.data };
}

/** The first error of a GraphQL mutation, as its message and data. */
async function graphqlRefusal(caller: Caller, query: string, variables: Record<string, unknown>) {
  const answer = await caller.browser.request('POST', '/_app/gql', {
    json: { query, variables },
    headers: { 'x-csrf-token': caller.csrf },
  });
  const error = answer.body.errors?.[0];
  assert.equal(error?.extensions?.code, 'APP_FORBIDDEN', answer.text);
  return { message: error.message, data: error.extensions.data };
}

const REGISTER =
  'mutation ($input: RegisterWebhookEndpointInput!) { registerWebhookEndpoint(input: $input) { secret } }';

before(async () => {
  viewer = await signIn(app.base, app.accounts, 'viewer');
  portalViewer = await signIn(app.base, app.accounts, 'portal viewer');
});

describe("the product routes' role refusals are the core's", () => {
  for (const who of ['viewer', 'portal viewer'] as const) {
    it(`a ${who}'s POST /api/v1/webhooks is refused as its registerWebhookEndpoint is`, async () => {
      const caller = who === 'viewer' ? viewer : portalViewer;
      const input = { url: 'http://127.0.0.1:9/refused', events: ['*'], owner: OWNER };
      const rest = await restRefusal(caller, 'POST', '/api/v1/webhooks', input);
      const graphql = await graphqlRefusal(caller, REGISTER, { input });
      assert.deepEqual(rest, graphql);
      assert.deepEqual(rest, {
        message: `a ${who} may not ${OPERATION_TEXT['endpoints.register']}`,
        data: { operation: 'endpoints.register', role: who },
      });
    });
  }

  it("a viewer's POST /api/v1/tokens names the operation tokens.mint", async () => {
    const refused = await restRefusal(viewer, 'POST', '/api/v1/tokens', { name: 'refused' });
    assert.deepEqual(refused, {
      message: `a viewer may not ${OPERATION_TEXT['tokens.mint']}`,
      data: { operation: 'tokens.mint', role: 'viewer' },
    });
  });

  it("no credentials: still the guard's 401", async () => {
    const answer = await new Browser(app.base).request('POST', '/api/v1/webhooks', {
      json: { url: 'http://127.0.0.1:9/x', events: ['*'] },
    });
    assert.equal(answer.status, 401);
    assert.equal(answer.body.code, 'APP_UNAUTHENTICATED');
  });
});

/**
 * The webhook API reads JSON bodies (and forms where a form is taken) and refuses any other body
 * with 415 `APP_BODY_MEDIA_TYPE_UNSUPPORTED` instead of ignoring it: a JSON emit sent as
 * text/plain used to reach the action with no fields and be refused for a missing event name.
 * A mutating request without a body is served as before.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { call, closeAll, createEndpoint, startApi, type ApiHarness } from '../webhooks-api/helpers.ts';

/** A POST with exactly these headers and no body at all: no Content-Length, no Transfer-Encoding (like `curl -X POST`). */
function bareRequest(url: string, headers: Record<string, string>) {
  const target = new URL(url);
  const head = Object.entries({ Host: target.host, ...headers, Connection: 'close' })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return new Promise<{ status: number; body: Record<string, any> }>((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname, () =>
      socket.write(`POST ${target.pathname} HTTP/1.1\r\n${head}\r\n`),
    );
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [statusHead, ...rest] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n');
      const text = rest.join('\r\n\r\n');
      resolve({ status: Number(statusHead.split(' ')[1]), body: text ? JSON.parse(text) : {} });
    });
  });
}

describe('request body media types on the webhook API', () => {
  after(closeAll);
  let app: ApiHarness;
  let admin: string;
  before(async () => {
    app = await startApi();
    admin = await app.token('admin');
  });

  const emit = JSON.stringify({ type: 'order.created', data: { id: 1 } });

  for (const type of ['text/plain', 'application/xml', 'text/plain;charset=UTF-8']) {
    it(`an emit sent as ${type} is 415 APP_BODY_MEDIA_TYPE_UNSUPPORTED, not a 422 about the event name`, async () => {
      const answer = await call('POST', `${app.api}/events`, {
        token: admin,
        body: emit,
        headers: { 'Content-Type': type },
      });
      assert.equal(answer.status, 415, answer.text);
      assert.equal(answer.headers.get('content-type'), 'application/problem+json');
      assert.equal(answer.body.code, 'APP_BODY_MEDIA_TYPE_UNSUPPORTED');
      assert.equal(answer.body.data.contentType, type);
    });
  }

  it('an emit with a charset other than UTF-8 is 415, one with bytes that are not UTF-8 is 400 APP_BODY_INVALID', async () => {
    const latin = await call('POST', `${app.api}/events`, {
      token: admin,
      body: emit,
      headers: { 'Content-Type': 'application/json; charset=latin-99' },
    });
    assert.equal(latin.status, 415, latin.text);
    assert.equal(latin.body.code, 'APP_BODY_MEDIA_TYPE_UNSUPPORTED');
    assert.equal(latin.body.data.charset, 'latin-99');

    const bytes = Buffer.concat([
      Buffer.from('{"type": "order.created", "data": {"n": "'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}}'),
    ]);
    const response = await fetch(`${app.api}/events`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' },
      body: bytes,
    });
    assert.equal(response.status, 400);
    assert.equal(((await response.json()) as { code: string }).code, 'APP_BODY_INVALID');
  });

  it('a JSON emit is accepted (202) as before', async () => {
    const answer = await call('POST', `${app.api}/events`, { token: admin, body: emit });
    assert.equal(answer.status, 202, answer.text);
  });

  it('a mutating request with no body at all is served: rotate with nothing, with or without a Content-Type', async () => {
    const endpoint = await createEndpoint(app, admin, { url: 'https://127.0.0.1/media-types' });
    const variants: Record<string, string>[] = [{}, { 'Content-Type': 'text/plain' }];
    for (const headers of variants) {
      const rotated = await bareRequest(`${app.api}/webhooks/${endpoint.externalId}/rotate`, {
        Authorization: `Bearer ${admin}`,
        Accept: 'application/hal+json',
        ...headers,
      });
      assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
      assert.match(rotated.body.secret, /^whsec_/);
    }
  });

  it('the GraphQL path keeps its own 415 (APP_GRAPHQL_MEDIA_TYPE_UNSUPPORTED)', async () => {
    const response = await fetch(`${app.base}/_app/gql`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: '{ __typename }',
    });
    assert.equal(response.status, 415);
    assert.equal(((await response.json()) as { code: string }).code, 'APP_GRAPHQL_MEDIA_TYPE_UNSUPPORTED');
  });
});

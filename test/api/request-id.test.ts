import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createWebServer, type WebServer } from '../../api/server.ts';
import { createTestDatabase } from '../helpers/database.ts';

describe('X-Request-Id', () => {
  let web: WebServer;
  let base: string;
  before(async () => {
    const db = await createTestDatabase();
    web = createWebServer({ config: db.config, log: db.log });
    base = `http://127.0.0.1:${(await web.start(0)).port}`;
  });
  after(() => web.shutdown('test'));

  it('keeps a sane id from the client and echoes it', async () => {
    const response = await fetch(`${base}/livez`, { headers: { 'X-Request-Id': 'abc-123_XYZ.1' } });
    assert.equal(response.headers.get('x-request-id'), 'abc-123_XYZ.1');
  });

  it('makes one when the client sends none, on errors too', async () => {
    const response = await fetch(`${base}/no/such/route`);
    assert.equal(response.status, 404);
    const id = response.headers.get('x-request-id');
    assert.match(id ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(((await response.json()) as { requestId: string }).requestId, id);
  });

  for (const [rule, value] of [
    ['longer than 200 characters', 'a'.repeat(201)],
    ['with a space inside', 'a b'],
    ['with a non-ASCII character', 'idé'],
    ['empty', ''],
  ] as const) {
    it(`replaces a malformed id (${rule}) and never echoes it`, async () => {
      const response = await fetch(`${base}/readyz`, { headers: { 'X-Request-Id': value } });
      const id = response.headers.get('x-request-id');
      assert.notEqual(id, value);
      assert.match(id ?? '', /^[0-9a-f-]{36}$/);
    });
  }

  it('replaces an id with a control character (a tab, sent raw on the socket)', async () => {
    const { connect } = await import('node:net');
    const port = new URL(base).port;
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.end(`GET /livez HTTP/1.1\r\nHost: x\r\nX-Request-Id: ab\tcd\r\nConnection: close\r\n\r\n`);
      });
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('latin1')));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    const echoed = /x-request-id: (.*)\r\n/i.exec(raw)?.[1];
    assert.ok(echoed, raw);
    assert.notEqual(echoed, 'ab\tcd');
    assert.match(echoed, /^[0-9a-f-]{36}$/);
  });
});

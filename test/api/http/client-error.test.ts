/**
 * What Node's HTTP parser refuses is answered by api/http/client-error.ts on the refused socket:
 * here, a request that did not arrive in full in time (Node's `headersTimeout` or
 * `requestTimeout`, a minute and more: the refusal is handed to the handler on a real socket
 * rather than waited for) is 408 `APP_REQUEST_INCOMPLETE`, not a malformed request.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { answerClientError } from '../../../api/http/client-error.ts';

describe('answers to the HTTP parser refusals', () => {
  it('a request not received in full in time is 408 APP_REQUEST_INCOMPLETE with a request id', async () => {
    const server = createServer((socket: Socket) => {
      answerClientError(Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), socket);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as { port: number };
      const client = connect(port, '127.0.0.1');
      const chunks: Buffer[] = [];
      client.on('data', (chunk: Buffer) => chunks.push(chunk));
      await once(client, 'close');
      const [head, body] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n');
      assert.match(head, /^HTTP\/1\.1 408 Request Timeout\r\n/);
      assert.match(head, /\r\nContent-Type: application\/problem\+json\r\n/);
      const problem = JSON.parse(body) as Record<string, unknown>;
      assert.equal(problem.status, 408);
      assert.equal(problem.code, 'APP_REQUEST_INCOMPLETE');
      assert.equal(problem.requestId, /\r\nX-Request-Id: ([^\r]+)/.exec(head)?.[1]);
    } finally {
      server.close();
    }
  });
});

/**
 * Reading whether a connection's session has started (shared/db/session-start.ts): the server's
 * messages are followed however its bytes are cut into chunks, up to the first ReadyForQuery; a
 * clean close before it counts as cut short, after it or on a cancel request's connection not.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { describe, it } from 'node:test';
import { CANCEL_REQUEST, SSL_REQUEST, watchSessionStart } from '../../../shared/db/session-start.ts';

const STARTUP = 196_608;

/** One backend message: its type, its length (counting itself) and `body`. */
function message(type: string, body = ''): Buffer {
  const bytes = Buffer.from(body);
  const header = Buffer.alloc(5);
  header.write(type, 0);
  header.writeUInt32BE(bytes.length + 4, 1);
  return Buffer.concat([header, bytes]);
}

/** What PostgreSQL answers a startup with under trust: AuthenticationOk, parameters, key data, ReadyForQuery. */
const START = Buffer.concat([
  message('R', '\0\0\0\0'),
  message('S', 'server_version\x0018.1\0'),
  message('S', 'TimeZone\0UTC\0'),
  message('K', '\0\0\0\x2a\0\0\0\x07'),
]);
const READY = message('Z', 'I');

/** Feeds `bytes` to a watch in chunks of `size` bytes, then the peer's end; answers whether it was cut short. */
function cutShortAfter(bytes: Buffer, size: number, opening = STARTUP): boolean {
  const socket = new EventEmitter() as Socket;
  const cutShort = watchSessionStart(socket, () => opening);
  for (let at = 0; at < bytes.length; at += size) socket.emit('data', bytes.subarray(at, at + size));
  socket.emit('end');
  return cutShort();
}

describe('watchSessionStart', () => {
  for (const size of [1, 2, 3, 5, 7, 1024]) {
    it(`follows the messages cut into chunks of ${size}: a close before ReadyForQuery is cut short, after it not`, () => {
      assert.equal(cutShortAfter(START, size), true);
      assert.equal(cutShortAfter(Buffer.concat([START, READY]), size), false);
      // a ReadyForQuery byte inside another message's body is not one
      assert.equal(cutShortAfter(message('S', 'ZZZZZZZZ'), size), true);
    });
  }

  it('a close with nothing received is cut short', () => {
    assert.equal(cutShortAfter(Buffer.alloc(0), 1), true);
  });

  it('a close without the peer ending (closed from this side) is not', () => {
    const socket = new EventEmitter() as Socket;
    const cutShort = watchSessionStart(socket, () => STARTUP);
    socket.emit('data', START);
    assert.equal(cutShort(), false);
  });

  it("after an SSLRequest, the server's answer comes first: N, then the plain messages; S hands over to TLS", () => {
    assert.equal(cutShortAfter(Buffer.concat([Buffer.from('N'), START]), 3, SSL_REQUEST), true);
    assert.equal(cutShortAfter(Buffer.concat([Buffer.from('N'), START, READY]), 3, SSL_REQUEST), false);
    assert.equal(cutShortAfter(Buffer.from('S'), 1, SSL_REQUEST), false);
  });

  it("a cancel request's connection, which the server closes without a word, is not cut short", () => {
    assert.equal(cutShortAfter(Buffer.alloc(0), 1, CANCEL_REQUEST), false);
  });
});

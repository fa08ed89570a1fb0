/**
 * Reading what the server says ahead of the driver (shared/db/session-start.ts): the server's
 * messages are followed however its bytes are cut into chunks; a clean close before the first
 * ReadyForQuery counts as cut short, after it or on a cancel request's connection not; an
 * ErrorResponse that ends the session (any before ReadyForQuery, a FATAL after it) is taken out
 * and answered as the session's end, while everything else reaches the driver whole and in order.
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

/** An ErrorResponse of `severity` with SQLSTATE `code`, as PostgreSQL sends it. */
function errorMessage(severity: string, code: string, text: string): Buffer {
  return message('E', `S${severity}\0V${severity}\0C${code}\0M${text}\0Rroutine\0\0`);
}

/**
 * Feeds `bytes` to a watch in chunks of `size` bytes until it says the session ended, then the
 * peer's end: answers what it gave the driver, the error that ended the session, and whether the
 * close was cut short.
 */
function watched(bytes: Buffer, size: number, opening = STARTUP) {
  const socket = new EventEmitter() as Socket;
  const watch = watchSessionStart(socket, () => opening);
  const passed: Buffer[] = [];
  let ended: (Error & { code?: string; severity?: string }) | undefined;
  for (let at = 0; at < bytes.length && !ended; at += size) {
    const read = watch.read(bytes.subarray(at, at + size));
    passed.push(read.pass);
    ended = read.ended;
  }
  socket.emit('end');
  return { passed: Buffer.concat(passed), ended, cutShort: watch.cutShort() };
}

const cutShortAfter = (bytes: Buffer, size: number, opening = STARTUP) => watched(bytes, size, opening).cutShort;

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
    const watch = watchSessionStart(socket, () => STARTUP);
    watch.read(START);
    assert.equal(watch.cutShort(), false);
  });

  it("after an SSLRequest, the server's answer comes first: N, then the plain messages; S hands over to TLS", () => {
    assert.equal(cutShortAfter(Buffer.concat([Buffer.from('N'), START]), 3, SSL_REQUEST), true);
    assert.equal(cutShortAfter(Buffer.concat([Buffer.from('N'), START, READY]), 3, SSL_REQUEST), false);
    assert.equal(cutShortAfter(Buffer.from('S'), 1, SSL_REQUEST), false);
  });

  it("a cancel request's connection, which the server closes without a word, is not cut short", () => {
    assert.equal(cutShortAfter(Buffer.alloc(0), 1, CANCEL_REQUEST), false);
  });

  const REFUSED = errorMessage('FATAL', '57P03', 'the database system is not yet accepting connections');
  const ROWS = Buffer.concat([message('T', 'x'.repeat(30)), message('D', 'y'.repeat(700)), message('C', 'SELECT 1\0')]);
  for (const size of [1, 2, 5, 6, 64, 1024]) {
    it(`an ErrorResponse before ReadyForQuery ends the session and is not given to the driver (chunks of ${size})`, () => {
      const seen = watched(Buffer.concat([message('R', '\0\0\0\0'), REFUSED]), size);
      assert.equal(seen.ended?.name, 'PostgresError');
      assert.equal(seen.ended?.code, '57P03');
      assert.equal(seen.ended?.severity, 'FATAL');
      assert.equal(seen.ended?.message, 'the database system is not yet accepting connections');
      assert.deepEqual(seen.passed, message('R', '\0\0\0\0'), 'what came before it is given, nothing of it');
    });

    it(`after ReadyForQuery, a statement's ERROR is given in order and the session goes on; a FATAL ends it (chunks of ${size})`, () => {
      const failing = errorMessage('ERROR', '23505', 'duplicate key value');
      const session = Buffer.concat([START, READY, ROWS, READY, failing, READY, ROWS]);
      const going = watched(session, size);
      assert.equal(going.ended, undefined);
      assert.deepEqual(going.passed, session, 'every byte given to the driver, in order');

      const terminated = errorMessage('FATAL', '57P01', 'terminating connection due to administrator command');
      const ending = watched(Buffer.concat([START, READY, ROWS, terminated]), size);
      assert.equal(ending.ended?.code, '57P01');
      assert.deepEqual(ending.passed, Buffer.concat([START, READY, ROWS]));
      assert.equal(ending.cutShort, false, 'a close after the session started is not cut short');
    });
  }

  it('an SSLRequest answered with an ErrorResponse ends the session; answered N, the refusal after it does', () => {
    assert.equal(watched(REFUSED, 3, SSL_REQUEST).ended?.code, '57P03');
    const plain = watched(Buffer.concat([Buffer.from('N'), REFUSED]), 3, SSL_REQUEST);
    assert.equal(plain.ended?.code, '57P03');
    assert.deepEqual(plain.passed, Buffer.from('N'), "the server's answer is given to the driver");
  });

  it("a cancel request's connection is not read: whatever comes is given as it is", () => {
    const seen = watched(REFUSED, 1024, CANCEL_REQUEST);
    assert.equal(seen.ended, undefined);
    assert.deepEqual(seen.passed, REFUSED);
  });
});

/**
 * Whether a connection's session has started, read from what the server sends: PostgreSQL's
 * messages (a type byte, then a length that counts itself) up to its first ReadyForQuery, after
 * which nothing more is read.
 *
 * The `postgres` driver (3.4.9) treats a connection that the server closes cleanly before its
 * session starts as one to open again at once, with the query it was opened for still waiting:
 * against a proxy that accepts connections and closes them while the database behind it is down,
 * that query waited forever, and the driver opened hundreds of connections a second meanwhile.
 * PostgreSQL itself never closes a connection at that stage without saying why (an
 * ErrorResponse), so such a close is the proxy saying the database cannot be reached; the
 * service's sockets report it to the driver as an error (shared/db/driver-socket.ts), as a refused
 * connection would be: the query fails at once, and the reconnect backoff paces the attempts.
 */
import type { Socket } from 'node:net';

/** PostgreSQL's protocol codes of the opening messages this looks at. */
export const SSL_REQUEST = 80_877_103;
export const CANCEL_REQUEST = 80_877_102;

const READY_FOR_QUERY = 0x5a; // 'Z'
const SSL_ACCEPTED = 0x53; // 'S': the server speaks TLS next, read on the TLS socket over this one
const HEADER = 5;
const EMPTY = Buffer.alloc(0);

/**
 * Watches `socket` from its first byte and answers whether the server has closed it cleanly
 * before the session started. `opening` tells what the client opened the connection with: after
 * an SSLRequest the first byte is the server's answer (TLS, when accepted, is watched on the TLS
 * socket instead); a cancel request's connection is one the server closes without a word.
 */
export function watchSessionStart(socket: Socket, opening: () => number | undefined): () => boolean {
  let state: 'starting' | 'ready' | 'elsewhere' = 'starting';
  let peerEnded = false;
  let answered = false;
  let header: Buffer = EMPTY;
  let skip = 0;
  const stop = (to: 'ready' | 'elsewhere') => {
    state = to;
    socket.off('data', read);
  };
  function read(bytes: Buffer): void {
    let at = 0;
    if (!answered) {
      answered = true;
      if (opening() === SSL_REQUEST) {
        if (bytes[0] === SSL_ACCEPTED) {
          stop('elsewhere');
          return;
        }
        at = 1;
      }
    }
    while (at < bytes.length) {
      if (skip > 0) {
        const skipped = Math.min(skip, bytes.length - at);
        skip -= skipped;
        at += skipped;
        continue;
      }
      const taken = bytes.subarray(at, at + HEADER - header.length);
      header = Buffer.concat([header, taken]);
      at += taken.length;
      if (header.length < HEADER) return;
      if (header[0] === READY_FOR_QUERY) {
        stop('ready');
        return;
      }
      skip = header.readUInt32BE(1) - 4;
      header = EMPTY;
    }
  }
  socket.on('data', read);
  socket.once('end', () => {
    peerEnded = true;
  });
  return () => state === 'starting' && peerEnded && opening() !== CANCEL_REQUEST;
}

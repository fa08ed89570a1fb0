/**
 * What the server says on a connection, read ahead of the `postgres` driver (3.4.9): PostgreSQL's
 * messages (a type byte, then a length that counts itself), to know whether the session has
 * started (its first ReadyForQuery) and to take out the ErrorResponses that end it.
 *
 * A connection the server closes cleanly before its session starts: the driver treats it as one
 * to open again at once, with the query it was opened for still waiting. Against a proxy that
 * accepts connections and closes them while the database behind it is down, that query waited
 * forever, and the driver opened hundreds of connections a second meanwhile. PostgreSQL itself
 * never closes a connection at that stage without saying why (an ErrorResponse), so such a close
 * is the proxy saying the database cannot be reached; the service's sockets report it to the
 * driver as an error (shared/db/driver-socket.ts), as a refused connection would be: the query
 * fails at once, and the reconnect backoff paces the attempts.
 *
 * An ErrorResponse that ends the session (any before its first ReadyForQuery: a start-up refused
 * with 57P03 while the server recovers or shuts down, 53300, a failed login; after it, one of
 * severity FATAL or PANIC: 57P01 at a fast shutdown or a terminated backend): the driver takes an
 * ErrorResponse for the answer to the query it counts as running, and keeps that query when its
 * connection dies mid-query. So after a session died mid-query, the refusal of the next start-up,
 * or a FATAL that came during a query, was stored as that dead query's answer, never cleared by
 * the close, and given at the next session's first ReadyForQuery to that session's first query:
 * the query failed with the stale refusal, seconds after the database was back, or much later on
 * a seldom used connection of a pool. Such an ErrorResponse is never given to the driver: it is
 * reported as the socket's error, with the server's fields (SQLSTATE `code`, `severity`,
 * `message`, ...), so the queries waiting on the connection fail with it at once and nothing of it
 * is left for a later session. Other ErrorResponses (a statement's error) pass as they are.
 */
import type { Socket } from 'node:net';
import postgres from 'postgres';

/** PostgreSQL's protocol codes of the opening messages this looks at. */
export const SSL_REQUEST = 80_877_103;
export const CANCEL_REQUEST = 80_877_102;

const READY_FOR_QUERY = 0x5a; // 'Z'
const ERROR_RESPONSE = 0x45; // 'E'
const SSL_ACCEPTED = 0x53; // 'S': the server speaks TLS next, read on the TLS socket over this one
const SSL_REFUSED = 0x4e; // 'N': the server speaks plainly next
const HEADER = 5;
const EMPTY = Buffer.alloc(0);

/** The field codes of an ErrorResponse, named as the driver names them on its errors. */
const FIELDS: Record<string, string> = {
  S: 'severity_local',
  V: 'severity',
  C: 'code',
  M: 'message',
  D: 'detail',
  H: 'hint',
  P: 'position',
  p: 'internal_position',
  q: 'internal_query',
  W: 'where',
  s: 'schema_name',
  t: 'table_name',
  c: 'column_name',
  d: 'data_type_name',
  n: 'constraint_name',
  F: 'file',
  L: 'line',
  R: 'routine',
};

/** The error the driver would make of `message` (a whole ErrorResponse): its `PostgresError`. */
export function serverError(message: Buffer): Error & Record<string, string> {
  const fields: Record<string, string> = {};
  for (let at = HEADER; at < message.length && message[at] !== 0; ) {
    const end = message.indexOf(0, at + 1);
    if (end < 0) break;
    const name = FIELDS[String.fromCharCode(message[at])];
    if (name) fields[name] = message.toString('utf8', at + 1, end);
    at = end + 1;
  }
  const PostgresError = postgres.PostgresError as unknown as new (
    fields: Record<string, string>,
  ) => Error & Record<string, string>;
  return new PostgresError(fields);
}

/** Whether the server ends the session after `error` (PostgreSQL's unlocalised severity, else the local one). */
function endsSession(error: Record<string, string>): boolean {
  const severity = error.severity ?? error.severity_local;
  return severity === 'FATAL' || severity === 'PANIC';
}

export interface SessionWatch {
  /**
   * Reads `bytes`, the next the server sent: answers what of them the driver is given now (an
   * ErrorResponse is held until whole) and, when they end with an ErrorResponse that ends the
   * session, that error (nothing from it on is given to the driver).
   */
  read(bytes: Buffer): { pass: Buffer; ended?: Error };
  /** Whether the server has closed the connection cleanly before the session started. */
  cutShort(): boolean;
}

/**
 * Watches `socket` from its first byte. `opening` tells what the client opened the connection
 * with: after an SSLRequest the first byte is the server's answer (TLS, when accepted, is watched
 * on the TLS socket instead); a cancel request's connection is one the server closes without a
 * word, and is not read.
 */
export function watchSessionStart(socket: Socket, opening: () => number | undefined): SessionWatch {
  let state: 'starting' | 'started' | 'elsewhere' = 'starting';
  let peerEnded = false;
  let answered = false;
  /** The message header read so far (a header may come cut across chunks). */
  let header: Buffer = EMPTY;
  /** Bytes of the current message's body still to come. */
  let skip = 0;
  /** An ErrorResponse being read, from its type byte: held from the driver until whole. */
  let held: Buffer[] | undefined;
  socket.once('end', () => {
    peerEnded = true;
  });

  function read(bytes: Buffer): { pass: Buffer; ended?: Error } {
    if (state === 'elsewhere') return { pass: bytes };
    let at = 0;
    if (!answered) {
      answered = true;
      const code = opening();
      if (code === CANCEL_REQUEST || (code === SSL_REQUEST && bytes[0] === SSL_ACCEPTED)) {
        state = 'elsewhere';
        return { pass: bytes };
      }
      // an SSLRequest is answered N, or with an ErrorResponse (a server that cannot take the connection)
      if (code === SSL_REQUEST && bytes[0] === SSL_REFUSED) at = 1;
    }
    const whole = !held; // no ErrorResponse held from an earlier chunk
    const out: Buffer[] = [];
    let from = 0; // start of the bytes of this chunk given to the driver as they are
    while (at < bytes.length) {
      if (skip > 0) {
        const taken = Math.min(skip, bytes.length - at);
        held?.push(bytes.subarray(at, at + taken));
        skip -= taken;
        at += taken;
      } else if (header.length === 0 && bytes[at] !== ERROR_RESPONSE && at + HEADER <= bytes.length) {
        // a whole header in this chunk, read in place (most messages)
        if (bytes[at] === READY_FOR_QUERY) state = 'started';
        const end = at + 1 + bytes.readUInt32BE(at + 1);
        skip = Math.max(0, end - bytes.length);
        at = Math.min(end, bytes.length);
        continue;
      } else {
        if (header.length === 0 && bytes[at] === ERROR_RESPONSE) {
          out.push(bytes.subarray(from, at));
          held = [];
        }
        const taken = bytes.subarray(at, at + HEADER - header.length);
        held?.push(taken);
        header = header.length === 0 ? taken : Buffer.concat([header, taken]);
        at += taken.length;
        if (header.length < HEADER) break;
        if (header[0] === READY_FOR_QUERY) state = 'started';
        skip = header.readUInt32BE(1) - 4;
        header = EMPTY;
      }
      if (held && skip === 0 && header.length === 0) {
        const message = Buffer.concat(held);
        held = undefined;
        from = at;
        const error = serverError(message);
        if (state === 'starting' || endsSession(error)) return { pass: joined(out), ended: error };
        out.push(message);
      }
    }
    if (held) return { pass: joined(out) };
    // the chunk as it came when it held no ErrorResponse, the usual case
    return { pass: whole && from === 0 ? bytes : joined([...out, bytes.subarray(from)]) };
  }

  return {
    read,
    cutShort: () => state === 'starting' && peerEnded && opening() !== CANCEL_REQUEST,
  };
}

function joined(parts: Buffer[]): Buffer {
  const some = parts.filter((part) => part.length > 0);
  return some.length === 1 ? some[0] : Buffer.concat(some);
}

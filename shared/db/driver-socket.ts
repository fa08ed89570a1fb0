/**
 * The sockets the `postgres` driver (3.4.9) opens its connections on, made by us so that a
 * connection that closed with a write still buffered can connect again, and so that no query
 * given to a connection as its socket fails resolves without having run.
 *
 * The driver gathers each connection's small writes and sends them from one `setImmediate`. When
 * the socket closes before that runs, the driver cancels it but keeps the cancelled timer and
 * the unsent bytes, and as long as it holds that timer it never schedules another send. The next
 * time that connection connects, its startup message is added to the stale bytes and never sent:
 * PostgreSQL waits for it, the driver gives up after `connect_timeout` (5 s, `CONNECT_TIMEOUT`),
 * and every later attempt of that connection fails the same way until its buffer passes the
 * 1,024 bytes at which the driver sends at once. A restart of the server closes every connection
 * at the same moment, so a busy process is likely to have a write buffered on one of them as its
 * close is handled (for instance a query retried as another connection's close fails it): each
 * connection caught so cost 5 s per attempt, and processes used the database again 13 to 22 s
 * after its return.
 *
 * What this does about it, from outside the driver:
 * - The driver writes its startup message (or its TLS request) at once on every new socket. When
 *   nothing has come by the time its scheduled send would have run (two turns of the event loop's
 *   immediates), the connection holds stale bytes: the socket is closed cleanly, which the driver
 *   answers by connecting again at once with its query still waiting. Each such round adds one
 *   startup message to the stale bytes, so after about ten rounds (milliseconds, no query
 *   sent) the driver sends everything it holds and is itself again. On a direct TLS connection
 *   (`sslnegotiation=direct`) the startup message is the first write on the TLS socket the driver
 *   makes over ours, once its handshake is done: that socket is the one watched and closed.
 * - The first bytes written on a new socket are sent from the last startup (or TLS or cancel)
 *   request on: what came before it is what the closed connection left unsent, queries the driver
 *   has already failed, never to be sent to a new session.
 *
 * The driver also loses a query given to a connection as its socket ends. It fails what it has
 * sent on the socket's 'error', and on its 'close' fails nothing more when the close came with an
 * error; Node emits that 'close' a phase of the event loop after the 'error', so a query given to
 * the connection in between (a retry from the failed query's `catch`, another request's write)
 * was kept and, on the next session, answered by that session's start-up: an INSERT resolved with
 * no rows though it never ran. These sockets tell the driver of an 'error' and the 'close' in one
 * go, before any other code runs, so such a query finds the connection closed and is sent on its
 * next session like any query after a close. On a TLS connection the driver listens to the TLS
 * socket it makes over this one, which is made to end together too (`tls.connect` is wrapped for
 * that, below; test/shared/db/driver-tls.test.ts).
 *
 * A connection the server closes cleanly before its session starts (a proxy in front of a database
 * that is down) is told to the driver as an error, so its query fails with a connection error
 * instead of waiting while the driver opens connection after connection; and an ErrorResponse that
 * ends the session (a start-up refused with 57P03 while the server recovers, a FATAL such as 57P01
 * at a fast shutdown) is told as the socket's error instead of given to the driver, which would
 * have kept it as the answer to a query of a connection that died mid-query and failed the next
 * session's first query with it (shared/db/session-start.ts).
 *
 * Left as the driver does it: a statement a transaction sends after its connection closed is
 * answered by the next session's start-up without having run (it never reaches that session:
 * the stale bytes are dropped as above); the transaction itself rejects and stores nothing
 * (test/shared/db/driver-errors.test.ts).
 */
import { Socket } from 'node:net';
import tls from 'node:tls';
import type { Logger } from '../log/logger.ts';
import { CANCEL_REQUEST, type SessionWatch, SSL_REQUEST, watchSessionStart } from './session-start.ts';

/** The driver's resolved options this reads (every host and port of the URL, or a Unix socket). */
interface DriverConnectOptions {
  host: string[];
  port: number[];
  path: string | false;
  sslnegotiation?: string | null;
}

/** Protocol codes of the messages a connection may open with (PostgreSQL's protocol 3.0). */
const OPENING_CODES = new Set([
  196_608, // StartupMessage, protocol 3.0
  SSL_REQUEST,
  CANCEL_REQUEST,
  80_877_104, // GSSENCRequest
]);

/** Whether `bytes` holds, from `offset` to its end, exactly one opening message. */
function isOpening(bytes: Buffer, offset: number): boolean {
  return (
    bytes.length - offset >= 8 &&
    bytes.readUInt32BE(offset) === bytes.length - offset &&
    OPENING_CODES.has(bytes.readUInt32BE(offset + 4))
  );
}

/**
 * `bytes` from its last opening message on: the whole of it when it is one (every connection
 * but one that holds stale bytes), or when no opening message ends it (not recognised: sent as is).
 */
export function fromLastOpening(bytes: Buffer): Buffer {
  if (isOpening(bytes, 0)) return bytes;
  for (let offset = bytes.length - 8; offset > 0; offset -= 1) {
    if (isOpening(bytes, offset)) return bytes.subarray(offset);
  }
  return bytes;
}

/**
 * The sockets `driverSocket` made, each with its pool's logger and whether its connection opens
 * with TLS directly: a TLS socket the driver wraps around one gets `endTogether` too, and on a
 * direct TLS connection it is the one mended (see `mendStartup`).
 */
const ours = new WeakMap<Socket, { log: Logger | undefined; direct: boolean }>();

/**
 * Makes `socket` tell its listeners (the driver) of its end as its 'error' and its 'close' in one
 * go (see the file comment); its own later 'close', and any further 'error', are not passed on.
 * With `watch` (shared/db/session-start.ts), what the server sends is read before the driver gets
 * it: an ErrorResponse that ends the session is not given to the driver but told as the socket's
 * error, and the socket destroyed; a clean close before the session started is told as an error
 * too. Either only while anyone listens for one (the driver does from the socket's making).
 */
function endTogether(socket: Socket, watch?: SessionWatch): void {
  const emit = socket.emit.bind(socket) as (event: string | symbol, ...args: unknown[]) => boolean;
  let ended = false;
  const endWith = (error: unknown) => {
    ended = true;
    emit('error', error);
    return emit('close', true);
  };
  socket.emit = ((event: string | symbol, ...args: unknown[]) => {
    if (event === 'data' && watch && !ended && Buffer.isBuffer(args[0])) {
      const { pass, ended: refusal } = watch.read(args[0]);
      if (pass.length > 0) emit('data', pass);
      if (!refusal) return true;
      if (!ended && socket.listenerCount('error') > 0) endWith(refusal);
      socket.destroy();
      return true;
    }
    if (event !== 'error' && event !== 'close') return emit(event, ...args);
    if (ended) return true;
    if (event === 'error') return endWith(args[0]);
    ended = true;
    if (watch?.cutShort() && socket.listenerCount('error') > 0) return endWith(closedBeforeSession(socket));
    return emit('close', ...args);
  }) as Socket['emit'];
}

/** What a connection the server closed before its session started fails its query with. */
function closedBeforeSession(socket: Socket): Error {
  const { host, port } = socket as Socket & { host?: string; port?: number };
  const where = host === undefined ? 'the database server' : `the database server at ${host}:${port}`;
  return Object.assign(new Error(`${where} closed the connection before its session started`), {
    code: 'CONNECTION_CLOSED',
  });
}

/**
 * The driver makes a connection's TLS socket itself (`tls.connect({socket})` over the socket
 * given it) and listens to that one; `tls.connect` is wrapped, once, so that the TLS socket over
 * one of ours ends together as well. Any other call is passed on untouched.
 */
const WRAPPED = Symbol.for('app.driver-socket.tls-connect');
if (!(tls.connect as { [WRAPPED]?: true })[WRAPPED]) {
  const connectTls = tls.connect;
  const wrapped = function (this: unknown, ...args: unknown[]) {
    const made = (connectTls as (...a: unknown[]) => tls.TLSSocket).apply(this, args);
    const options = args[0] as { socket?: unknown } | undefined;
    const own = options && typeof options === 'object' && options.socket instanceof Socket && ours.get(options.socket);
    if (own) {
      // the session's messages, decrypted, from the first; its opening (a startup or a cancel
      // request) is the first write on this socket
      let opening: number | undefined;
      const onOpening = (code: number) => {
        opening = code;
      };
      endTogether(
        made,
        watchSessionStart(made, () => opening),
      );
      // a direct TLS connection's startup message is the first write on this socket, not on ours
      if (own.direct) mendStartup(made, own.log, 'secureConnect', onOpening);
      else noteOpening(made, onOpening);
    }
    return made;
  };
  Object.assign(wrapped, { [WRAPPED]: true });
  tls.connect = wrapped as typeof tls.connect;
}

/**
 * The driver's `socket` option: connects to the options' host and port (taking each host of a
 * multi-host URL in turn, as the driver does) or Unix socket, and mends a connection that holds
 * stale bytes (see the file comment). `log` hears, at debug level, of each mended connection.
 * Once `ended` says the pool has ended, no socket is made: the driver fails the attempt with
 * CONNECTION_ENDED before connecting. The driver's `end()` leaves scheduled the reconnect of a
 * connection whose attempt had just failed, which would otherwise open a connection after the
 * end and keep the process waiting for it (a connect timeout, from a database that does not
 * answer).
 */
export function driverSocket(log?: Logger, ended?: () => boolean): (options: DriverConnectOptions) => Socket {
  let next = 0;
  return (options) => {
    if (ended?.())
      throw Object.assign(new Error('the database pool has ended: it opens no more connections'), {
        code: 'CONNECTION_ENDED',
      });
    const socket = new Socket();
    if (options.path) {
      socket.connect(options.path);
    } else {
      const index = next++ % options.port.length;
      const host = options.host[index] ?? 'localhost';
      const port = options.port[index] ?? 5432;
      // read by the driver for its error messages and the name TLS checks
      Object.assign(socket, { host, port });
      socket.connect(port, host);
    }
    const direct = options.sslnegotiation === 'direct';
    ours.set(socket, { log, direct });
    // a direct TLS connection opens with the TLS handshake, which does not pass through `write`:
    // the TLS socket made over this one is mended and watched instead
    if (direct) {
      endTogether(socket);
      return socket;
    }
    let opening: number | undefined;
    endTogether(
      socket,
      watchSessionStart(socket, () => opening),
    );
    mendStartup(socket, log, 'now', (code) => {
      opening = code;
    });
    return socket;
  };
}

/** Tells `onOpening` the code of `socket`'s first write when that is one opening message. */
function noteOpening(socket: Socket, onOpening: (code: number) => void): void {
  const write = socket.write;
  socket.write = function (this: Socket, chunk: unknown, ...rest: unknown[]) {
    socket.write = write;
    if (Buffer.isBuffer(chunk) && isOpening(chunk, 0)) onOpening(chunk.readUInt32BE(4));
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as Socket['write'];
}

/**
 * Mends a new connection that holds stale bytes (see the file comment): `socket`'s first write
 * is sent from its last opening message on, and when nothing has been written two turns of the
 * event loop's immediates after `from` (now, or the TLS handshake's end on a direct TLS
 * connection, where the driver writes its startup message), `socket` is closed cleanly.
 */
function mendStartup(
  socket: Socket,
  log: Logger | undefined,
  from: 'now' | 'secureConnect',
  onOpening?: (code: number) => void,
): void {
  let written = false;
  const write = socket.write;
  socket.write = function (this: Socket, chunk: unknown, ...rest: unknown[]) {
    if (!written && Buffer.isBuffer(chunk)) {
      const opening = fromLastOpening(chunk);
      if (isOpening(opening, 0)) onOpening?.(opening.readUInt32BE(4));
      if (opening.length < chunk.length)
        log?.debug(
          { dropped: chunk.length - opening.length },
          'database connection: unsent bytes of its closed socket dropped',
        );
      chunk = opening;
    }
    written = true;
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as Socket['write'];
  const check = () =>
    setImmediate(() =>
      setImmediate(() => {
        if (written || socket.destroyed) return;
        log?.debug('database connection: its startup message is held behind a closed socket; connecting again');
        socket.destroy();
      }),
    );
  if (from === 'now') check();
  // registered before the driver's own listener, which writes the startup message
  else socket.once('secureConnect', check);
}

/**
 * One delivery attempt: POST the signed body to the receiver and report what happened as data
 * (outcome.ts decides what it means).
 *
 * - Redirects are never followed (`dispatcher.dispatch` has no redirect handling unless a
 *   redirect interceptor is composed, and the pinned dispatcher composes none).
 * - `timeoutMs` bounds the whole exchange: the wait for a connection, connecting, the headers
 *   and the body read.
 * - At most `excerptBytes` of the answer are read; then the request is aborted, which drops the
 *   socket instead of downloading the rest.
 * - A refused address, whether an IP literal in the URL or an address the name resolved to,
 *   comes back as `address-refused` with that address, never as a connection error.
 * - A name that does not resolve is a `connection-error` (retried: DNS failures can pass).
 */
import type { Dispatcher } from 'undici';
import { type AppError, isAppError } from '../../shared/errors/app-error.ts';
import { checkWebhookUrl } from '../../shared/webhooks/address-rules.ts';
import { dialledAddress, trackDial, type Dial } from './dialled-address.ts';

/**
 * What one attempt came to. `error` texts are meant for the operator's failure record; `address`
 * is the address the attempt was sent to, when it reached a socket (dialled-address.ts for HTTP,
 * the checked dial for a broker). A broker destination (worker/destinations/) answers
 * `acknowledged` (its acknowledgement, described in `detail`) or `rejected` (a negative
 * acknowledgement, a refused login, a missing exchange, stream or subject) where an HTTP receiver
 * answers a `response`.
 */
export type AttemptResult =
  | { kind: 'response'; status: number; location?: string; excerpt: string; durationMs: number; address?: string }
  | { kind: 'acknowledged'; detail: string; durationMs: number; address?: string }
  | { kind: 'rejected'; error: string; durationMs: number; address?: string }
  | { kind: 'timeout'; durationMs: number; error: string; address?: string }
  | { kind: 'connection-error'; error: string; durationMs: number; address?: string }
  | { kind: 'address-refused'; address: string; rule: string; error: string; durationMs: number }
  | { kind: 'invalid-url'; error: string };

/** Input of `postDelivery`. */
export interface DeliveryRequest {
  url: string;
  headers: Record<string, string>;
  body: string | Uint8Array;
  /** Bound on the whole exchange (`webhooks.timeout`), in milliseconds. */
  timeoutMs: number;
  /** Most bytes of the answer read for the excerpt (default 64 kB). */
  excerptBytes?: number;
  allowHttp: boolean;
  allowPrivate: boolean;
}

/** Default size of the response excerpt: 64 kB of the answer are read. */
export const DEFAULT_EXCERPT_BYTES = 65_536;

const REFUSED = 'APP_WEBHOOK_ADDRESS_REFUSED';
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

/** Whether `error` is the address rules' refusal (`APP_WEBHOOK_ADDRESS_REFUSED`). */
export const isAddressRefusal = (error: unknown): error is AppError => isAppError(error) && error.code === REFUSED;

/** The refusal carried by an `APP_WEBHOOK_ADDRESS_REFUSED` AppError, as an attempt result. */
export function refused(error: AppError, durationMs: number): AttemptResult {
  const data = error.data ?? {};
  return {
    kind: 'address-refused',
    address: String(data.address),
    rule: String(data.rule),
    error: error.message,
    durationMs,
  };
}

/** Every error reachable from `error` through `cause` and `AggregateError.errors`. */
function* errorChain(error: unknown, seen = new Set<unknown>()): Generator<unknown> {
  if (error === null || error === undefined || seen.has(error)) return;
  seen.add(error);
  yield error;
  if (error instanceof AggregateError) for (const inner of error.errors) yield* errorChain(inner, seen);
  if (error instanceof Error) yield* errorChain(error.cause, seen);
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { code, reason } = error as { code?: unknown; reason?: unknown };
  // OpenSSL's own message names its internal function, source file and line, and ends in a
  // newline: its code and reason say the same in one line (`ERR_SSL_WRONG_VERSION_NUMBER: TLS
  // error: wrong version number`)
  if (typeof code === 'string' && code.startsWith('ERR_SSL_') && typeof reason === 'string')
    return `${code}: TLS error: ${reason}`;
  const text =
    error instanceof AggregateError && error.message === '' ? error.errors.map(describe).join('; ') : error.message;
  return typeof code === 'string' && !text.includes(code) ? `${code}: ${text}` : text;
}

/** The abort reason of an attempt's own deadline: reported as `timeout`, never thrown to the caller. */
class TimedOut extends Error {}

/** What `exchange` reads of the final answer: its status, its `Location` and the first bytes of its body. */
interface Answer {
  status: number;
  location?: string;
  excerpt: Buffer;
}

/**
 * One request through undici's handler interface (`dispatch`): the answer's first `limit` bytes
 * are kept as they arrive, and the request is aborted once they are in, which drops the socket
 * instead of reading the rest. `dispatcher.request` would put a readable stream, its promise per
 * chunk and an abort signal's listeners around the same exchange, nearly doubling the client's
 * CPU of a request (BENCHMARKS.md, "The HTTP exchange through undici's handlers").
 *
 * `timeoutMs` starts now and bounds everything, the wait for a connection included: a request
 * still queued behind an origin's busy connections settles at its deadline, and undici aborts it
 * unsent when its turn comes.
 */
function exchange(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions, limit: number, timeoutMs: number) {
  return new Promise<Answer>((resolve, reject) => {
    let settled = false;
    let controller: Dispatcher.DispatchController | null = null;
    let abortedFor: Error | null = null;
    let status = 0;
    let location: string | undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      outcome();
    };
    const abort = (reason: Error) => {
      if (controller === null) abortedFor ??= reason;
      else if (!controller.aborted) controller.abort(reason);
    };
    const answered = () =>
      resolve({ status, ...(location === undefined ? {} : { location }), excerpt: Buffer.concat(chunks, size) });
    const timer = setTimeout(() => {
      const timedOut = new TimedOut();
      settle(() => reject(timedOut));
      abort(timedOut);
    }, timeoutMs);
    dispatcher.dispatch(options, {
      onRequestStart(started) {
        controller = started;
        if (abortedFor !== null) started.abort(abortedFor);
      },
      onResponseStart(_started, statusCode, headers) {
        if (statusCode < 100) {
          // the parser lets any three digits through; undici would fail this one on an internal assertion
          const broken = new Error(`the answer's status ${statusCode} is not an HTTP status`);
          settle(() => reject(broken));
          abort(broken);
          return;
        }
        // an interim answer (102 Processing, 103 Early Hints) comes before the final one, which
        // alone is the receiver's answer: its status and its Location
        if (statusCode < 200) return;
        status = statusCode;
        const value = headers.location;
        if (value !== undefined) location = Array.isArray(value) ? value[0] : String(value);
        if (limit <= 0) {
          settle(answered);
          abort(new Error('the answer is not read'));
        }
      },
      onResponseData(_started, chunk) {
        const room = limit - size;
        if (room <= 0) return;
        chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
        size += Math.min(chunk.length, room);
        if (size >= limit) {
          settle(answered);
          abort(new Error('the excerpt is read'));
        }
      },
      onResponseEnd() {
        settle(answered);
      },
      onResponseError(_started, error) {
        settle(() => reject(error));
      },
    });
  });
}

/**
 * Performs one delivery attempt through `dispatcher` (the worker's pinned dispatcher) and
 * reports it as an `AttemptResult`; it never throws for anything the receiver, the network or
 * the URL does.
 */
export async function postDelivery(dispatcher: Dispatcher, request: DeliveryRequest): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const { timeoutMs, excerptBytes = DEFAULT_EXCERPT_BYTES } = request;

  let url: URL;
  try {
    url = checkWebhookUrl(request.url, { allowHttp: request.allowHttp, allowPrivate: request.allowPrivate });
  } catch (error) {
    if (isAddressRefusal(error)) return refused(error, elapsed());
    return { kind: 'invalid-url', error: describe(error) };
  }

  const timeoutMessage = `no complete answer within ${timeoutMs} ms`;
  const dial: Dial = {};
  try {
    const answer = await trackDial(dial, () =>
      exchange(
        dispatcher,
        {
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method: 'POST',
          headers: request.headers,
          body: request.body,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        },
        excerptBytes,
        timeoutMs,
      ),
    );
    return {
      kind: 'response',
      status: answer.status,
      ...(answer.location === undefined ? {} : { location: answer.location }),
      // invalid sequences (and a character cut at the excerpt's end) read as U+FFFD
      excerpt: answer.excerpt.toString('utf8'),
      durationMs: elapsed(),
      ...dialledAddress(dial),
    };
  } catch (error) {
    for (const link of errorChain(error)) {
      if (isAddressRefusal(link)) return refused(link, elapsed());
    }
    if (error instanceof TimedOut)
      return { kind: 'timeout', durationMs: elapsed(), error: timeoutMessage, ...dialledAddress(dial) };
    if ([...errorChain(error)].some((link) => TIMEOUT_CODES.has(String((link as { code?: unknown }).code)))) {
      return { kind: 'timeout', durationMs: elapsed(), error: describe(error), ...dialledAddress(dial) };
    }
    return { kind: 'connection-error', error: describe(error), durationMs: elapsed(), ...dialledAddress(dial) };
  }
}

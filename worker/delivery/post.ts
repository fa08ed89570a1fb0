/**
 * One delivery attempt: POST the signed body to the receiver and report what happened as data
 * (outcome.ts decides what it means).
 *
 * - Redirects are never followed (`dispatcher.request` has no redirect handling unless a
 *   redirect interceptor is composed, and the pinned dispatcher composes none).
 * - `timeoutMs` bounds the whole exchange: connecting, the headers and the body read.
 * - At most `excerptBytes` of the answer are read; then the body is destroyed, which drops the
 *   socket instead of downloading the rest.
 * - A refused address, whether an IP literal in the URL or an address the name resolved to,
 *   comes back as `address-refused` with that address, never as a connection error.
 * - A name that does not resolve is a `connection-error` (retried: DNS failures can pass).
 */
import type { Dispatcher } from 'undici';
import { AppError, isAppError } from '../../shared/errors/app-error.ts';
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
  const code = (error as { code?: unknown }).code;
  const text =
    error instanceof AggregateError && error.message === '' ? error.errors.map(describe).join('; ') : error.message;
  return typeof code === 'string' && !text.includes(code) ? `${code}: ${text}` : text;
}

/** The first `limit` bytes of `body`, then the body is destroyed (which drops the socket). */
async function readExcerpt(body: Dispatcher.ResponseData['body'], limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  if (limit <= 0) {
    body.destroy();
    return Buffer.alloc(0);
  }
  for await (const chunk of body as AsyncIterable<Buffer>) {
    const room = limit - size;
    chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
    size += Math.min(chunk.length, room);
    if (size >= limit) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks, size);
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

  const controller = new AbortController();
  // The abort reason of our own timer: never thrown to the caller, only reported as `timeout`
  // (made when the timer fires: an error's stack costs more than the rest of an attempt's setup)
  const timeoutMessage = `no complete answer within ${timeoutMs} ms`;
  const timer = setTimeout(
    () => controller.abort(new AppError(504, timeoutMessage, { code: 'APP_WEBHOOK_DELIVERY_TIMEOUT' })),
    timeoutMs,
  );
  const dial: Dial = {};
  try {
    const response = await trackDial(dial, () =>
      dispatcher.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: request.headers,
        body: request.body,
        signal: controller.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      }),
    );
    const excerpt = await readExcerpt(response.body, excerptBytes);
    const location = response.headers.location;
    return {
      kind: 'response',
      status: response.statusCode,
      ...(location === undefined ? {} : { location: Array.isArray(location) ? location[0] : location }),
      excerpt: new TextDecoder('utf-8', { fatal: false }).decode(excerpt),
      durationMs: elapsed(),
      ...dialledAddress(dial),
    };
  } catch (error) {
    for (const link of errorChain(error)) {
      if (isAddressRefusal(link)) return refused(link, elapsed());
    }
    if (controller.signal.aborted)
      return { kind: 'timeout', durationMs: elapsed(), error: timeoutMessage, ...dialledAddress(dial) };
    if ([...errorChain(error)].some((link) => TIMEOUT_CODES.has(String((link as { code?: unknown }).code)))) {
      return { kind: 'timeout', durationMs: elapsed(), error: describe(error), ...dialledAddress(dial) };
    }
    return { kind: 'connection-error', error: describe(error), durationMs: elapsed(), ...dialledAddress(dial) };
  } finally {
    clearTimeout(timer);
  }
}

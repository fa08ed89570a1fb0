/**
 * What every broker sender does alike around one attempt: the pool key of a destination's
 * connection, the bound on the whole attempt, and error texts that never carry the password
 * (a library may echo what it was given, and these texts reach the attempt's stored error and
 * the logs).
 */
import { createHash } from 'node:crypto';
import { AppError, isAppError } from '../../shared/errors/app-error.ts';
import type { BrokerConnection } from '../../shared/webhooks/destinations/parse.ts';
import type { AttemptResult } from '../delivery/post.ts';

/**
 * The pool key of a connection to `destination`: host, port, TLS, user and a digest of the
 * password (a changed password opens a new connection, and the key holds no secret), then
 * `scope` (what else makes a connection distinct: a vhost, a database number).
 */
export function connectionKey(destination: BrokerConnection, ...scope: Array<string | number>): string {
  const digest = createHash('sha256').update(destination.password).digest('base64url').slice(0, 22);
  return JSON.stringify([destination.host, destination.port, destination.tls, destination.username, digest, ...scope]);
}

/** Longest error text kept from a broker client. */
const MAX_ERROR_LENGTH = 500;

/**
 * `text` with the password of `destination` (as written, percent-encoded or JSON-escaped) and
 * the password of any `user:pass@` of a URL replaced by `***`.
 */
export function scrub(text: string, destination: Pick<BrokerConnection, 'password'>): string {
  let out = text;
  const { password } = destination;
  if (password !== '') {
    for (const form of new Set([password, encodeURIComponent(password), JSON.stringify(password).slice(1, -1)]))
      out = out.split(form).join('***');
  }
  return out.replace(/(\/\/[^/\s:@]*):[^/\s@]*@/g, '$1:***@');
}

/**
 * The message of `error` (with its code when the message lacks it; its cause's when it has none),
 * scrubbed of the password and cut to a readable length.
 */
export function describeError(error: unknown, destination: Pick<BrokerConnection, 'password'>): string {
  let text = String(error);
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    text =
      typeof code === 'string' && code !== '' && !error.message.includes(code)
        ? `${code}: ${error.message}`
        : error.message;
    if (text === '' && error.cause !== undefined) text = describeError(error.cause, destination);
    if (text === '') text = error.name;
  }
  const scrubbed = scrub(text, destination);
  return scrubbed.length > MAX_ERROR_LENGTH ? `${scrubbed.slice(0, MAX_ERROR_LENGTH)}…` : scrubbed;
}

/** What `within` answers when the time ran out first. */
export const TIMED_OUT: unique symbol = Symbol('timed out');

/**
 * `promise`'s value, or `TIMED_OUT` when it has not settled within `ms` (a rejection is passed
 * on). The promise keeps running; the caller discards what it was waiting on.
 */
export async function within<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), Math.max(0, ms));
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

const TIMEOUT_CODE = 'APP_WEBHOOK_DELIVERY_TIMEOUT';

/**
 * The error a connection's opening fails with when the broker did not let it in within `ms`
 * (`what` did not come): every attempt waiting on that opening is a `timeout`.
 */
export const openingTimeout = (what: string, ms: number): AppError =>
  new AppError(504, `no ${what} within ${ms} ms`, { code: TIMEOUT_CODE });

/** Whether `error` is one `openingTimeout` made. */
export const isOpeningTimeout = (error: unknown): error is AppError => isAppError(error) && error.code === TIMEOUT_CODE;

/**
 * A promise that rejects once `lose` is called: an attempt races its publish against it, so a
 * connection that goes mid-attempt fails the attempt at once instead of leaving it waiting.
 * Nobody is obliged to wait on it (its rejection is never unhandled).
 */
export function lossSignal(): { lost: Promise<never>; lose: (error: Error) => void } {
  let lose: (error: Error) => void = () => undefined;
  const lost = new Promise<never>((_resolve, reject) => {
    lose = reject;
  });
  lost.catch(() => undefined);
  return { lost, lose };
}

/** The attempt's result, or a `timeout` once `timeoutMs` has passed (then `onTimeout` runs). */
export async function boundedAttempt(
  timeoutMs: number,
  what: string,
  attempt: () => Promise<AttemptResult>,
  onTimeout: () => void,
): Promise<AttemptResult> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<AttemptResult>((resolve) => {
    timer = setTimeout(() => {
      onTimeout();
      resolve({
        kind: 'timeout',
        durationMs: Math.round(performance.now() - started),
        error: `no ${what} within ${timeoutMs} ms`,
      });
    }, timeoutMs);
  });
  try {
    return await Promise.race([attempt(), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What every broker sender does alike around one attempt: the pool key of a destination's
 * connection, the bound on the whole attempt, and error texts that never carry the password
 * (a library may echo what it was given, and these texts reach the attempt's stored error and
 * the logs).
 */
import { createHash } from 'node:crypto';
import { AppError, isAppError } from '../../shared/errors/app-error.ts';
import type { BrokerConnection } from '../../shared/webhooks/destinations/parse.ts';

/**
 * The pool key of a connection to `destination`: host, port, TLS, user and a digest of the
 * password (a changed password opens a new connection, and the key holds no secret), then
 * `scope` (what else makes a connection distinct: a vhost, a database number).
 */
export function connectionKey(destination: BrokerConnection, ...scope: Array<string | number>): string {
  const digest = createHash('sha256').update(destination.password).digest('base64url').slice(0, 22);
  return JSON.stringify([destination.host, destination.port, destination.tls, destination.username, digest, ...scope]);
}

/** `text` with the password of `destination` (as written and percent-encoded) replaced by `***`. */
export function scrub(text: string, destination: Pick<BrokerConnection, 'password'>): string {
  const { password } = destination;
  if (password === '') return text;
  let out = text;
  for (const form of new Set([password, encodeURIComponent(password)])) out = out.split(form).join('***');
  return out;
}

/** The message of `error` (with its code when the message lacks it), scrubbed of the password. */
export function describeError(error: unknown, destination: Pick<BrokerConnection, 'password'>): string {
  let text = String(error);
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    text =
      typeof code === 'string' && code !== '' && !error.message.includes(code)
        ? `${code}: ${error.message}`
        : error.message;
    if (text === '') text = error.name;
  }
  return scrub(text, destination);
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

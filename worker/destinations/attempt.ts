/**
 * What the broker senders share about one attempt: the key of the pooled connection a
 * destination uses, error texts with the destination's credentials scrubbed out (they go to the
 * attempt's stored error, the logs and the console), and the bound on the whole attempt.
 */
import { createHash } from 'node:crypto';
import type { BrokerDestination } from '../../shared/webhooks/destinations/parse.ts';
import type { AttemptResult } from '../delivery/post.ts';
import type { DialTarget } from './dial.ts';

/**
 * The pool key of `destination` reached at `dial`: the checked address, the host TLS checks,
 * port, TLS, user, a digest of the password (never the password itself) and `extra` (vhost, db).
 */
export function connectionKey(destination: BrokerDestination, dial: DialTarget, ...extra: string[]): string {
  const password = createHash('sha256').update(destination.password).digest('base64url').slice(0, 22);
  return [
    dial.address,
    dial.host,
    String(destination.port),
    destination.tls ? 'tls' : 'plain',
    destination.username,
    password,
    ...extra,
  ].join('\u0000');
}

/** Longest error text kept from a broker client. */
const MAX_ERROR_LENGTH = 500;

/**
 * The text of `error` (its code first when the message lacks it) with the password of
 * `destination`, in any form it could be written, and any `user:pass@` of a URL replaced by `***`.
 */
export function scrubbedError(error: unknown, destination: Pick<BrokerDestination, 'password'>): string {
  let text: string;
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    text = typeof code === 'string' && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
    if (text === '' && error.cause !== undefined) text = scrubbedError(error.cause, destination);
  } else {
    text = String(error);
  }
  const secret = destination.password;
  if (secret !== '') {
    for (const form of new Set([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]))
      text = text.split(form).join('***');
  }
  text = text.replace(/(\/\/[^/\s:@]*):[^/\s@]*@/g, '$1:***@');
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH)}…` : text;
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

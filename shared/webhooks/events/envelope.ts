/**
 * The event envelope, the request body of every delivery (docs/receiving.md): a JSON object
 * with the keys `data`, `id`, `timestamp`, `type` in that order. `id` is the delivery id (the
 * `webhook-id`), `timestamp` the ISO 8601 UTC time of the event itself. The text made here is
 * stored with the delivery and sent byte for byte on every attempt, so the signature a receiver
 * checks is over exactly this text.
 */
import { AppError, unprocessable } from '../../errors/app-error.ts';

/** An emitted payload as JSON text, checked once per event and shared by all its deliveries. */
export interface PayloadText {
  /** `JSON.stringify(payload)`; `null` for an undefined payload. */
  text: string;
  bytes: number;
}

// \u0000 in a JSON string: PostgreSQL's jsonb refuses it, so an event holding one cannot be stored.
const ESCAPED_NUL = /(?:^|[^\\])(?:\\\\)*\\u0000/;
// JSON.stringify writes a lone surrogate as an escape (\ud800) and a valid pair as itself: any
// surrogate escape is a lone one, which jsonb refuses and UTF-8 cannot hold.
const ESCAPED_SURROGATE = /(?:^|[^\\])(?:\\\\)*\\ud[89a-f][0-9a-f]{2}/;

/**
 * The payload given to emit as JSON text. Throws 422 `APP_WEBHOOK_PAYLOAD_INVALID` when it cannot
 * be serialised (a BigInt, a cycle, a function), holds `\u0000` or a number that is not finite
 * (JSON.stringify would write null for it), and 413
 * `APP_WEBHOOK_PAYLOAD_TOO_LARGE` when the text is longer than `maxBytes`.
 */
export function payloadText(payload: unknown, maxBytes: number): PayloadText {
  const invalid = (reason: string, cause?: unknown) =>
    unprocessable(`invalid webhook payload: ${reason}`, {
      code: 'APP_WEBHOOK_PAYLOAD_INVALID',
      data: { field: 'data', reason },
      cause,
    });
  let text: string | undefined;
  try {
    text = JSON.stringify(payload === undefined ? null : payload);
  } catch (error) {
    throw invalid(`cannot be serialised as JSON (${(error as Error).message})`, error);
  }
  if (text === undefined) throw invalid('cannot be serialised as JSON');
  // JSON.stringify writes a number that is not finite as null: the receiver would be sent null in
  // its place. Only a text holding `null` can hide one, so only such a text is walked again.
  if (text.includes('null')) {
    const where = nonFiniteNumber(payload);
    if (where !== undefined)
      throw invalid(
        `holds ${where.value} at ${where.path}, a number JSON cannot carry (a JSON number past ±1.8e308 reads as Infinity); send it as a string`,
      );
  }
  if (ESCAPED_NUL.test(text)) throw invalid('contains the character U+0000, which cannot be stored');
  if (ESCAPED_SURROGATE.test(text)) throw invalid('contains a lone UTF-16 surrogate, which cannot be stored');
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > maxBytes) {
    throw new AppError(413, `webhook payload is ${bytes} bytes, more than the ${maxBytes} allowed (config bodyLimit)`, {
      code: 'APP_WEBHOOK_PAYLOAD_TOO_LARGE',
      data: { field: 'data', bytes, limit: maxBytes },
    });
  }
  return { text, bytes };
}

/**
 * The first number that is not finite (Infinity, -Infinity, NaN) in what JSON.stringify serialises
 * of `payload` (after `toJSON`), with its dot path from `data`; undefined when there is none.
 */
function nonFiniteNumber(payload: unknown): { path: string; value: number } | undefined {
  const paths = new WeakMap<object, string>();
  let found: { path: string; value: number } | undefined;
  JSON.stringify(payload, function (this: object, key: string, value: unknown) {
    if (found !== undefined) return undefined;
    const path = key === '' ? 'data' : `${paths.get(this) ?? 'data'}.${key}`;
    if (typeof value === 'number' && !Number.isFinite(value)) found = { path, value };
    else if (typeof value === 'object' && value !== null) paths.set(value, path);
    return value;
  });
  return found;
}

/**
 * The envelope text for one delivery. Equal to `JSON.stringify({data, id, timestamp, type})`
 * (the payload text is spliced in rather than serialised again for every endpoint).
 */
export function envelopeBody(input: { data: PayloadText; id: string; timestamp: Date; type: string }): string {
  return `{"data":${input.data.text},"id":${JSON.stringify(input.id)},"timestamp":${JSON.stringify(input.timestamp.toISOString())},"type":${JSON.stringify(input.type)}}`;
}

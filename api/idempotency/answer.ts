/**
 * A stored answer (the idempotency record: status, headers and body of the first answer) and
 * the plain conversions between it and what a Koa route leaves in `ctx`.
 */
import { Stream } from 'node:stream';

export type HeaderValue = string | string[];

export type StoredBody =
  | { kind: 'empty' }
  /** A JSON body (an object or array the outer middleware serialises): its JSON text. */
  | { kind: 'json'; text: string }
  | { kind: 'text'; text: string }
  | { kind: 'bytes'; base64: string };

export interface StoredAnswer {
  status: number;
  headers: Record<string, HeaderValue>;
  body: StoredBody;
}

/**
 * Headers that describe this exchange rather than the answer: never stored, so a replay carries
 * its own request id, limits and length.
 */
export const PER_REQUEST_HEADERS: ReadonlySet<string> = new Set([
  'x-request-id',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'ratelimit',
  'ratelimit-policy',
  'idempotency-replayed',
]);

const same = (a: unknown, b: unknown) =>
  Array.isArray(a) || Array.isArray(b) ? JSON.stringify(a) === JSON.stringify(b) : a === b;

/** The headers the route set or changed (compared with those present before it ran). */
export function answerHeaders(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): Record<string, HeaderValue> {
  const headers: Record<string, HeaderValue> = {};
  for (const [name, value] of Object.entries(after)) {
    const lower = name.toLowerCase();
    if (PER_REQUEST_HEADERS.has(lower) || value === undefined || same(before[name], value)) continue;
    headers[lower] = Array.isArray(value) ? value.map(String) : String(value);
  }
  return headers;
}

export const isStream = (body: unknown): body is Stream => body instanceof Stream;

/** A body as Koa holds it (object, string, bytes, nothing; streams are read into bytes first). */
export function storeBody(body: unknown): StoredBody {
  if (body === null || body === undefined) return { kind: 'empty' };
  if (typeof body === 'string') return { kind: 'text', text: body };
  if (body instanceof Uint8Array) return { kind: 'bytes', base64: Buffer.from(body).toString('base64') };
  return { kind: 'json', text: JSON.stringify(body) };
}

/** The body to put back in `ctx.body`: the same kind of value, so the outer middleware answers the same bytes. */
export function replayBody(body: StoredBody): unknown {
  switch (body.kind) {
    case 'empty':
      return null;
    case 'text':
      return body.text;
    case 'bytes':
      return Buffer.from(body.base64, 'base64');
    case 'json':
      return JSON.parse(body.text);
  }
}

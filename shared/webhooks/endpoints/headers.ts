/**
 * The receiver-specific `headers` of a webhook endpoint (docs/receiving.md shows a delivery's
 * headers). The service sends its own `content-type`, `user-agent` and the three
 * Standard Webhooks headers; an endpoint may not replace them, nor set a hop-by-hop header that
 * belongs to the connection rather than the request. Names are HTTP tokens (RFC 9110 §5.1) and
 * compared case-insensitively; values may not hold CR, LF, NUL or other control characters
 * (RFC 9110 §5.5), which closes header injection.
 */
import { unprocessable } from '../../errors/app-error.ts';
import { describeValue } from '../../errors/describe-value.ts';

/** Names the service sets itself on every delivery. */
export const RESERVED_HEADERS: readonly string[] = [
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'content-type',
  'user-agent',
];

/**
 * Hop-by-hop and connection-level names (RFC 9110 §7.6.1, §7.2, §8.6), and `expect`, which the
 * HTTP client refuses anyway. Every name starting with `proxy-` is refused as well.
 */
export const HOP_BY_HOP_HEADERS: readonly string[] = [
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'expect',
];

/** Most headers one endpoint may carry. */
export const MAX_HEADERS = 32;
/** Longest header value accepted, in characters. */
export const MAX_HEADER_VALUE_LENGTH = 4096;

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Field values: HTAB, SP, visible ASCII and obs-text (Latin-1); no CR, LF, NUL or other controls.
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;
const BEYOND_LATIN1 = /[^\x00-\xff]/;

/** Why a header name is refused, or null. */
export function headerNameProblem(name: string): { rule: 'name' | 'reserved' | 'hop-by-hop'; reason: string } | null {
  if (!TOKEN.test(name)) return { rule: 'name', reason: 'is not a valid HTTP header name (token characters only)' };
  const lower = name.toLowerCase();
  if (RESERVED_HEADERS.includes(lower)) return { rule: 'reserved', reason: 'is set by the service on every delivery' };
  if (HOP_BY_HOP_HEADERS.includes(lower) || lower.startsWith('proxy-')) {
    return { rule: 'hop-by-hop', reason: 'is a hop-by-hop or connection header' };
  }
  return null;
}

/**
 * The endpoint headers, checked: a plain object of string values (null or undefined gives `{}`).
 * Throws AppError 422 `APP_WEBHOOK_HEADERS_INVALID` with data `{field: 'headers', name, rule,
 * reason}`; `rule` is `name`, `reserved`, `hop-by-hop`, `value`, `duplicate` or `shape`.
 */
export function assertEndpointHeaders(headers: unknown): Record<string, string> {
  const refuse = (name: string | null, rule: string, reason: string) =>
    unprocessable(`invalid webhook headers: ${name === null ? reason : `header ${describeValue(name)} ${reason}`}`, {
      code: 'APP_WEBHOOK_HEADERS_INVALID',
      data: { field: 'headers', name, rule, reason },
    });
  if (headers === null || headers === undefined) return {};
  const proto = typeof headers === 'object' ? Object.getPrototypeOf(headers) : undefined;
  if (typeof headers !== 'object' || Array.isArray(headers) || (proto !== Object.prototype && proto !== null)) {
    throw refuse(null, 'shape', 'must be an object mapping header names to string values');
  }
  const entries = Object.entries(headers as Record<string, unknown>);
  if (entries.length > MAX_HEADERS) throw refuse(null, 'shape', `may hold at most ${MAX_HEADERS} headers`);
  const seen = new Set<string>();
  const out: Record<string, string> = {};
  for (const [name, value] of entries) {
    const problem = headerNameProblem(name);
    if (problem) throw refuse(name, problem.rule, problem.reason);
    if (seen.has(name.toLowerCase())) throw refuse(name, 'duplicate', 'is given twice (names are case-insensitive)');
    seen.add(name.toLowerCase());
    if (typeof value !== 'string') throw refuse(name, 'value', 'must have a string value');
    if (CONTROL.test(value)) throw refuse(name, 'value', 'has a value with CR, LF or another control character');
    if (BEYOND_LATIN1.test(value))
      throw refuse(
        name,
        'value',
        'has a value with characters outside ISO-8859-1 (encode them, e.g. percent-encoding)',
      );
    if (value.length > MAX_HEADER_VALUE_LENGTH)
      throw refuse(name, 'value', `has a value longer than ${MAX_HEADER_VALUE_LENGTH} characters`);
    out[name] = value.trim();
  }
  return out;
}

/**
 * The headers of a change, checked as {@link assertEndpointHeaders} checks them, except that a
 * value may be `null`: the header keeps its stored value (every read without the reveal step
 * shows the values as null, so a read endpoint given back changes no value). Same 422 code.
 */
export function assertEndpointHeaderPatch(headers: unknown): Record<string, string | null> {
  if (headers === null || headers === undefined || typeof headers !== 'object' || Array.isArray(headers))
    return assertEndpointHeaders(headers);
  const kept = Object.entries(headers as Record<string, unknown>)
    .filter(([, value]) => value === null)
    .map(([name]) => name);
  const checked: Record<string, string | null> = assertEndpointHeaders(
    Object.fromEntries(Object.entries(headers as Record<string, unknown>).map(([n, v]) => [n, v === null ? '' : v])),
  );
  for (const name of kept) checked[name] = null;
  return checked;
}

/**
 * The stored (sealed) headers after a change: `given`'s new values sealed by `seal`, and each null
 * value the stored value of that name (names compared case-insensitively). A null for a name the
 * endpoint does not have is refused: 422 `APP_WEBHOOK_HEADERS_INVALID`, rule `value`.
 */
export function keepStoredHeaders(
  given: Record<string, string | null>,
  stored: Record<string, string> | null | undefined,
  seal: (headers: Record<string, string>) => Record<string, string>,
): Record<string, string> {
  const sealed = seal(
    Object.fromEntries(Object.entries(given).filter((entry): entry is [string, string] => entry[1] !== null)),
  );
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    if (value !== null) {
      out[name] = sealed[name];
      continue;
    }
    const storedName = Object.keys(stored ?? {}).find((known) => known.toLowerCase() === name.toLowerCase());
    if (storedName === undefined)
      throw unprocessable(
        `invalid webhook headers: header ${describeValue(name)} has no value (null keeps a stored value, and the endpoint has none)`,
        {
          code: 'APP_WEBHOOK_HEADERS_INVALID',
          data: { field: 'headers', name, rule: 'value', reason: 'has no stored value to keep' },
        },
      );
    out[name] = (stored as Record<string, string>)[storedName];
  }
  return out;
}

/**
 * One `--header 'Name: value'` argument of the CLI as `[name, value]`: split at the first colon,
 * the name trimmed, the value's surrounding spaces dropped. Throws the same 422 code when there is
 * no colon.
 */
export function parseHeaderArgument(text: string): [string, string] {
  const colon = text.indexOf(':');
  if (colon <= 0) {
    throw unprocessable(`invalid webhook header ${describeValue(text)}: write it as 'Name: value'`, {
      code: 'APP_WEBHOOK_HEADERS_INVALID',
      data: { field: 'headers', name: null, rule: 'shape', reason: "must be written as 'Name: value'" },
    });
  }
  return [text.slice(0, colon).trim(), text.slice(colon + 1).trim()];
}

/**
 * The `Idempotency-Key` request header (refused with 400 otherwise): 1 to 255 printable ASCII
 * characters (%x20-7E). The IETF draft defines the header as an RFC 8941 sf-string, so the
 * quoted form `"…"` (with `\"` and `\\` escapes) is accepted too and means its content.
 */
export const MAX_KEY_LENGTH = 255;

export type KeyCheck = { ok: true; key: string } | { ok: false; reason: string };

const PRINTABLE = /^[\x20-\x7e]*$/;

/** Unquotes an RFC 8941 sf-string (section 4.2.5); undefined when it is not a valid one. */
function unquote(text: string): string | undefined {
  let out = '';
  for (let i = 1; i < text.length - 1; i += 1) {
    const char = text[i];
    if (char === '\\') {
      const next = text[i + 1];
      if (i + 1 >= text.length - 1 || (next !== '"' && next !== '\\')) return undefined;
      out += next;
      i += 1;
    } else if (char === '"') {
      return undefined;
    } else {
      out += char;
    }
  }
  return out;
}

/** Checks a header value; the reason of a refusal is shown to the client. */
export function parseIdempotencyKey(value: string): KeyCheck {
  if (!PRINTABLE.test(value)) return { ok: false, reason: 'it may hold printable ASCII characters only' };
  let key = value;
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    const inner = unquote(value);
    if (inner === undefined) return { ok: false, reason: 'its quoted form is not a valid structured-field string' };
    key = inner;
  }
  if (key.length === 0) return { ok: false, reason: 'it is empty' };
  if (key.length > MAX_KEY_LENGTH) return { ok: false, reason: `it is longer than ${MAX_KEY_LENGTH} characters` };
  return { ok: true, key };
}

/**
 * Masking of sensitive values in anything the service logs (`config.filterParameters`). A key
 * is sensitive when its lowercased name contains one of the names; anything containing
 * `encryption` is always sensitive, whatever the list says. Strings are searched for URL query
 * parameters with sensitive names, so `/hook?token=abc` logs as `/hook?token=[FILTERED]`, and
 * for a URL's user name and password, so `redis://:pw@host` logs as `redis://***@host`. What a
 * library hangs on an error of the data it was handed (ERROR_PAYLOAD_FIELDS: a body parser's raw
 * request text, a Redis command's arguments, a password among them) is masked whatever its name.
 * Values nested deeper than MAX_LOG_DEPTH are logged as `[Nested]`: a client's body nested
 * thousands deep must not overflow the stack of the error handler logging it.
 */

export const FILTERED = '[FILTERED]';

/** How deep a logged value is walked; deeper values are logged as `[Nested]`. */
export const MAX_LOG_DEPTH = 10;
const ALWAYS = 'encryption';

export type Redactor = (value: unknown) => unknown;

/**
 * Fields of an error (or of an object under it) that hold data a library was handed rather than
 * what went wrong: `body` (a body parser's raw request text: a sign-in's password, an endpoint's
 * header values), `args` (ioredis's `command.args`: a refused `AUTH`'s password), `input` (Node's
 * invalid-URL error: the whole URL), `parameters` (a query's bound values).
 */
const ERROR_PAYLOAD_FIELDS: ReadonlySet<string> = new Set(['body', 'args', 'input', 'parameters']);

/** A URL's userinfo inside free text (`scheme://user:pass@`), up to the last `@` before its path. */
const USERINFO = /\b([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^\s/\\?#]*@/g;

/** `text` with every URL's user name and password replaced by `***`. */
export const maskUserinfo = (text: string): string =>
  text.includes('://') && text.includes('@') ? text.replace(USERINFO, '$1***@') : text;

/** Builds the masking function for a list of names (matched as case-insensitive substrings). */
export function createRedactor(names: readonly string[]): Redactor {
  const needles = [...new Set([...names.map((n) => n.toLowerCase()), ALWAYS])].filter(Boolean);
  const sensitive = (key: string) => {
    const lower = key.toLowerCase();
    return needles.some((needle) => lower.includes(needle));
  };
  const queryParam = /([?&;])([^=&#\s]+)=([^&#\s]*)/g;
  const redactQuery = (text: string) =>
    text.includes('=')
      ? text.replace(queryParam, (whole, sep: string, name: string) => {
          let decoded = name;
          try {
            decoded = decodeURIComponent(name);
          } catch {
            /* keep the raw name */
          }
          return sensitive(decoded) ? `${sep}${name}=${FILTERED}` : whole;
        })
      : text;
  const redactString = (text: string) => maskUserinfo(redactQuery(text));

  const walk = (value: unknown, seen: WeakSet<object>, depth: number, underError: boolean): unknown => {
    if (typeof value === 'string') return redactString(value);
    if (typeof value !== 'object' || value === null) return value;
    if (seen.has(value)) return '[Circular]';
    if (depth >= MAX_LOG_DEPTH) return '[Nested]';
    seen.add(value);
    if (Array.isArray(value)) return value.map((item) => walk(item, seen, depth + 1, underError));
    if (value instanceof Date || Buffer.isBuffer(value)) return value;
    const error = value instanceof Error;
    const source: Record<string, unknown> = error ? errorFields(value) : (value as Record<string, unknown>);
    const payload = underError || error;
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(source)) {
      out[key] =
        sensitive(key) || (payload && ERROR_PAYLOAD_FIELDS.has(key)) ? FILTERED : walk(inner, seen, depth + 1, payload);
    }
    return out;
  };
  return (value: unknown) => walk(value, new WeakSet(), 0, false);
}

/** The fields of an error worth logging, own enumerable properties included. */
function errorFields(error: Error): Record<string, unknown> {
  const fields: Record<string, unknown> = { type: error.name, message: error.message, stack: error.stack };
  for (const [key, value] of Object.entries(error)) fields[key] = value;
  if (error.cause !== undefined) fields.cause = error.cause;
  return fields;
}

const defaultRedactor = createRedactor(['password', 'token', 'secret', 'authorization']);

/**
 * `redact(object)` with the default names, for code that has no logger. A process masks with its
 * logger's `redact`, which uses the configured `filterParameters`.
 */
export const redact: Redactor = defaultRedactor;

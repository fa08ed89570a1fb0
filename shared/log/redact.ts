/**
 * Masking of sensitive values in anything the service logs (`config.filterParameters`). A key
 * is sensitive when its lowercased name contains one of the names; anything containing
 * `encryption` is always sensitive, whatever the list says. Strings are searched for URL query
 * parameters with sensitive names, so `/hook?token=abc` logs as `/hook?token=[FILTERED]`. Values
 * nested deeper than MAX_LOG_DEPTH are logged as `[Nested]`: a client's body nested thousands
 * deep must not overflow the stack of the error handler logging it.
 */

export const FILTERED = '[FILTERED]';

/** How deep a logged value is walked; deeper values are logged as `[Nested]`. */
export const MAX_LOG_DEPTH = 10;
const ALWAYS = 'encryption';

export type Redactor = (value: unknown) => unknown;

/** Builds the masking function for a list of names (matched as case-insensitive substrings). */
export function createRedactor(names: readonly string[]): Redactor {
  const needles = [...new Set([...names.map((n) => n.toLowerCase()), ALWAYS])].filter(Boolean);
  const sensitive = (key: string) => {
    const lower = key.toLowerCase();
    return needles.some((needle) => lower.includes(needle));
  };
  const queryParam = /([?&;])([^=&#\s]+)=([^&#\s]*)/g;
  const redactString = (text: string) =>
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

  const walk = (value: unknown, seen: WeakSet<object>, depth: number): unknown => {
    if (typeof value === 'string') return redactString(value);
    if (typeof value !== 'object' || value === null) return value;
    if (seen.has(value)) return '[Circular]';
    if (depth >= MAX_LOG_DEPTH) return '[Nested]';
    seen.add(value);
    if (Array.isArray(value)) return value.map((item) => walk(item, seen, depth + 1));
    if (value instanceof Date || Buffer.isBuffer(value)) return value;
    const source: Record<string, unknown> =
      value instanceof Error ? errorFields(value) : (value as Record<string, unknown>);
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(source)) {
      out[key] = sensitive(key) ? FILTERED : walk(inner, seen, depth + 1);
    }
    return out;
  };
  return (value: unknown) => walk(value, new WeakSet(), 0);
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

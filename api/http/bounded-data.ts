/**
 * What a problem answer echoes of a client's input, bounded: `data` often carries the refused
 * value, and a client may send one nested thousands deep (JSON.stringify would overflow the
 * stack) or a megabyte long (echoed back whole). Deeper than BOUNDS.depth a value becomes
 * `"[Nested]"`, arrays and objects keep their first BOUNDS.entries entries, strings their first
 * BOUNDS.chars characters.
 */
export const BOUNDS = { depth: 6, entries: 50, chars: 500 } as const;

export function boundedData(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.length > BOUNDS.chars ? `${value.slice(0, BOUNDS.chars)}…` : value;
  if (typeof value !== 'object' || value === null) return value;
  if (value instanceof Date) return value;
  if (depth >= BOUNDS.depth) return '[Nested]';
  if (Array.isArray(value)) return value.slice(0, BOUNDS.entries).map((item) => boundedData(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value)
      .slice(0, BOUNDS.entries)
      .map(([key, inner]) => [key, boundedData(inner, depth + 1)]),
  );
}

/** Longest `detail` a problem answer carries. */
export const MAX_DETAIL = 1000;

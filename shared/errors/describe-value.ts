/**
 * A short rendering of a value a client sent, for an error message: a string quoted and cut at
 * `max` characters, a number, boolean or null as itself, anything else by its kind. Never
 * throws, however large or deeply nested the value (JSON.stringify would overflow the stack on
 * a value nested some thousands deep, and echo a megabyte back).
 */
export function describeValue(value: unknown, max = 100): string {
  if (typeof value === 'string') return JSON.stringify(clip(value, max));
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (value === undefined) return 'nothing';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** `text` cut at `max` characters (an ellipsis says so). */
export const clip = (text: string, max = 100): string => (text.length > max ? `${text.slice(0, max)}…` : text);

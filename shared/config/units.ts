/**
 * Parsers for the human forms the config accepts: durations ("500ms", "10s", "6h", "2d" or a
 * number of milliseconds) and sizes ("1mb", "64kb" or a number of bytes). Each returns null
 * for anything it cannot read, so the caller can list the problem with its key.
 */

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const SIZE_UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

function parseWithUnits(value: unknown, units: Record<string, number>, bare: number): number | null {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : null;
  if (typeof value !== 'string') return null;
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(value);
  if (!match) return null;
  const unit = match[2].toLowerCase();
  const factor = unit === '' ? bare : units[unit];
  if (factor === undefined) return null;
  return Math.round(Number(match[1]) * factor);
}

/** Milliseconds from a number (already ms) or a string such as "10s", "6h", "250ms". */
export const parseDuration = (value: unknown): number | null => parseWithUnits(value, DURATION_UNITS, 1);

/** Bytes from a number or a string such as "1mb", "64kb". */
export const parseSize = (value: unknown): number | null => parseWithUnits(value, SIZE_UNITS, 1);

/** "6h" style text for a number of milliseconds, for printing defaults. */
export function formatDuration(ms: number): string {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

/**
 * A point in time as JSON writes it (`Date.prototype.toJSON`: ISO 8601 in UTC with
 * milliseconds, or null for an invalid date), written before serialising. JSON.stringify reaches
 * each date's text through a lookup and a call of its `toJSON`: on a page of 25 deliveries (75
 * dates) that took twice as long as writing the rest of the page's 17 kB; this writes the same
 * text in a fifth of that time.
 */

/** 00 to 999, written with two and three digits (no string made per date). */
const TWO = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));
const THREE = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));
const two = (n: number) => TWO[n];
const three = (n: number) => THREE[n];
const four = (n: number) => (n < 1000 ? `0${THREE[n]}` : `${n}`);

/** What `JSON.stringify` writes for `date` (without the quotes): its ISO text, or null when it is invalid. */
export function jsonTime(date: Date): string | null {
  if (date.toJSON !== Date.prototype.toJSON) return date.toJSON() as string | null; // a date with a toJSON of its own
  if (!Number.isFinite(date.getTime())) return null;
  const year = date.getUTCFullYear();
  if (year < 0 || year > 9999) return date.toISOString(); // ±YYYYYY, left to the engine
  return (
    `${four(year)}-${two(date.getUTCMonth() + 1)}-${two(date.getUTCDate())}` +
    `T${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())}.${three(date.getUTCMilliseconds())}Z`
  );
}

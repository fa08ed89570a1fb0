/** Text forms the commands print: times, aligned tables, and text made safe for a terminal. */

// C0 but tab and LF, DEL and C1 (U+009B, CSI, starts an escape sequence as ESC [ does)
const TERMINAL_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

// Bidirectional embeddings, overrides and isolates (U+202A to U+202E, U+2066 to U+2069), which
// reorder the rest of a line on screen, the line and paragraph separators (U+2028, U+2029), which
// some terminals break lines at, and the invisible zero-width space, word joiner and byte order
// mark (U+200B, U+2060, U+FEFF). The marks right-to-left text needs (U+200E, U+200F, U+061C) and
// the joiners of scripts and emoji (U+200C, U+200D) are text, and stay.
const HIDDEN_FORMATTING = /[\u200b\u2028\u2029\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g;

/**
 * `text` with each control character a terminal would act on (C0 but tab and LF, DEL, C1) written
 * as `\xNN`, and each formatting character that hides or reorders what is shown as `\uNNNN`. What
 * the commands print holds text from the database and from receivers (an endpoint's description,
 * an attempt's excerpt, a token's name), which the core's rules keep free of control characters
 * only since they were written; an escape sequence among them must not rewrite the operator's
 * screen, and a right-to-left override must not make a line read other than what it holds (a URL
 * or an id shown backwards, a table's columns swapped).
 */
export const terminalText = (text: string): string =>
  text
    .replace(TERMINAL_CONTROL, (character) => `\\x${character.charCodeAt(0).toString(16).padStart(2, '0')}`)
    .replace(HIDDEN_FORMATTING, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** A time as ISO 8601, or `-` for none. */
/** `1 link`, `2 links`: a count with its noun in the number it takes. */
export const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export const isoOrDash = (date: Date | null) => (date === null ? '-' : new Date(date).toISOString());

/** Rows of cells as aligned columns (the last column is not padded). */
export function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows
    .map((row) =>
      row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]))).join('  '),
    )
    .join('\n');
}

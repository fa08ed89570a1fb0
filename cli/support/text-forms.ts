/** Text forms the commands print: times, aligned tables, and text made safe for a terminal. */

// C0 but tab and LF, DEL and C1 (U+009B, CSI, starts an escape sequence as ESC [ does)
const TERMINAL_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * `text` with each control character a terminal would act on (C0 but tab and LF, DEL, C1) written
 * as `\xNN`. What the commands print holds text from the database and from receivers (an
 * endpoint's description, an attempt's excerpt, a token's name), which the core's rules keep free
 * of control characters only since they were written; an escape sequence among them must not
 * rewrite the operator's screen.
 */
export const terminalText = (text: string): string =>
  text.replace(TERMINAL_CONTROL, (character) => `\\x${character.charCodeAt(0).toString(16).padStart(2, '0')}`);

/** A time as ISO 8601, or `-` for none. */
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

/** Text forms the commands print: times and aligned tables. */

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

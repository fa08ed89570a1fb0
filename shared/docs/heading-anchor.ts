/**
 * The anchor GitHub gives a Markdown heading: lower case, spaces to hyphens, punctuation dropped.
 * The generated reference pages (docs/cli.md, docs/configuration.md) link their own headings by it.
 */
export const headingAnchor = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\w\s-]/g, '')
    .trim()
    .replace(/\s/g, '-');

/**
 * The naming rules that turn a model name into its defaults. Small on purpose: anything the
 * rules get wrong (`Person` -> `persons`) is set explicitly in the declaration.
 */

const words = (name: string): string[] =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter(Boolean)
    .map((word) => word.toLowerCase());

/** `publishedAt` -> `published_at`; `BlogPost` -> `blog_post`. */
export const snakeCase = (name: string): string => words(name).join('_');

/** `BlogPost` -> `blog-post`. */
export const kebabCase = (name: string): string => words(name).join('-');

/** English plural of the last word: `category` -> `categories`, `box` -> `boxes`, `post` -> `posts`. */
export function pluralize(word: string): string {
  if (/[^aeiou]y$/i.test(word)) return `${word.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/i.test(word)) return `${word}es`;
  return `${word}s`;
}

/** Identifiers we accept for tables, columns, fields and collections (letters, digits, `_`, `-` in collections). */
export const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;
export const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
export const COLLECTION_NAME = /^[a-z][a-z0-9-]{0,62}$/;

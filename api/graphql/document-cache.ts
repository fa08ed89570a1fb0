/**
 * A bounded least-recently-used map from query text to what was made of it (so a repeated query is
 * not parsed again): clients send the same few documents again and again, and parsing and
 * validating one costs more than resolving a page of records. Bounded twice, so a client sending
 * ever new texts cannot grow it: by the number of texts, and by their total length in characters (a
 * text longer than that bound is never kept).
 */

/** The bounds of a cache (`DOCUMENT_CACHE_BOUNDS` by default). */
export interface DocumentCacheBounds {
  /** Most texts kept. */
  maxEntries: number;
  /** Most characters of query text kept, all entries together. */
  maxCharacters: number;
}

/** 500 texts, 1,000,000 characters in all: a service's every query with room to spare, a few MB at most. */
export const DOCUMENT_CACHE_BOUNDS: Readonly<DocumentCacheBounds> = Object.freeze({
  maxEntries: 500,
  maxCharacters: 1_000_000,
});

export interface DocumentCache<T> {
  /** What is kept for `text` (now the most recently used), or undefined. */
  get(text: string): T | undefined;
  /** Keeps `value` for `text`, dropping the least recently used entries beyond the bounds. */
  set(text: string, value: T): void;
  /** Texts kept. */
  readonly size: number;
  /** Characters of the texts kept. */
  readonly characters: number;
}

export function createDocumentCache<T>(bounds: DocumentCacheBounds = DOCUMENT_CACHE_BOUNDS): DocumentCache<T> {
  // a Map iterates in insertion order: re-inserting on use keeps the least recently used first
  const entries = new Map<string, T>();
  let characters = 0;
  const drop = (text: string) => {
    entries.delete(text);
    characters -= text.length;
  };
  return {
    get(text) {
      const value = entries.get(text);
      if (value === undefined) return undefined;
      entries.delete(text);
      entries.set(text, value);
      return value;
    },
    set(text, value) {
      if (text.length > bounds.maxCharacters || bounds.maxEntries < 1) return;
      if (entries.has(text)) drop(text);
      entries.set(text, value);
      characters += text.length;
      for (const oldest of entries.keys()) {
        if (entries.size <= bounds.maxEntries && characters <= bounds.maxCharacters) break;
        drop(oldest);
      }
    },
    get size() {
      return entries.size;
    },
    get characters() {
      return characters;
    },
  };
}

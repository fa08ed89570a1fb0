/**
 * Formatting helpers every page template gets as `it.h` (templates stay free of logic beyond
 * loops and conditions). Every value they return is plain text, which the template escapes, but
 * `dotted`'s and the charts' markup, written unescaped.
 */
import { bucketText, countsChart, duration, latencyChart, legend, seriesSummary, span } from '../charts.ts';

const pad = (n: number) => String(n).padStart(2, '0');

/** `2026-05-01 12:03:04 UTC`; '-' for none. */
export function time(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  const date = value instanceof Date ? value : new Date(String(value));
  if (Number.isNaN(date.getTime())) return String(value);
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} UTC`;
}

/** The ISO form of a time, for `<time datetime>`. */
export const iso = (value: unknown): string =>
  value === null || value === undefined
    ? ''
    : new Date(String(value instanceof Date ? value.toISOString() : value)).toISOString();

/** A duration in seconds as `42 s`, `3 min`, `2 h 5 min`, `3 d`. */
export function age(seconds: unknown): string {
  const s = Math.max(0, Math.round(Number(seconds) || 0));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
}

/** A rate from 0 to 1 as `99.5 %`; '-' for null. */
export const percent = (rate: unknown): string =>
  rate === null || rate === undefined ? '-' : `${(Math.floor(Number(rate) * 1000) / 10).toString()} %`;

/** A page's total as people read it: `12`, or `about 48,000` when it is PostgreSQL's estimate (past `api.exactTotal`). */
export const total = (page: { total: number; totalEstimated?: boolean }): string =>
  page.totalEstimated ? `about ${page.total.toLocaleString('en')}` : String(page.total);

/** A listing's page as the templates page it: its number, how many pages, how many records, its records. */
interface ListPage {
  page: number;
  pages: number;
  total: number;
  nodes: readonly unknown[];
}

/** Whether `list` is an empty page past the end of a listing that has records (`?page=` too far). */
export const pastEnd = (list: ListPage | null | undefined): boolean =>
  !!list && list.page > 1 && list.nodes.length === 0 && list.total > 0;

/** The last page that has records, for a page past the end (a total PostgreSQL estimated may count too many pages). */
export const lastPage = (list: ListPage): number => Math.max(1, Math.min(list.pages, list.page - 1));

/**
 * The deepest page the pager links to: the last, or the deepest the listing's paging bound lets
 * it answer (its `deepestPage`, api.maxPageOffset), so "Next page" never leads to a refusal.
 */
export const deepest = (list: ListPage & { deepestPage?: number }): number =>
  list.deepestPage === undefined ? list.pages : Math.min(list.pages, list.deepestPage);

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * A dotted name (an event type) as markup that breaks across lines only after its dots: escaped,
 * with a `<wbr>` after each dot. Written unescaped (`<%~`) inside a `code.name`, which the
 * stylesheet keeps from breaking anywhere else, so "order.created" never reads "order.cr" /
 * "eated"; a `<wbr>` adds no character, so copying the name copies it as it is.
 */
export const dotted = (name: unknown): string =>
  String(name ?? '')
    .replace(/[&<>"']/g, (character) => ESCAPES[character])
    .replaceAll('.', '.<wbr>');

/** Event names or patterns as a comma-separated list, each a `code.name` of {@link dotted} markup (written unescaped). */
export const names = (list: readonly unknown[]): string =>
  list.map((name) => `<code class="name">${dotted(name)}</code>`).join(', ');

/**
 * `text` cut to `max` characters (whole characters: an emoji is not split), `…` standing for
 * the rest: a page's `<title>`, which a screen reader reads out whole on opening the page and on
 * each switch to its tab, and a tab shows the start of, names an endpoint by a URL of up to 2,048
 * characters; the page's heading keeps it whole.
 */
export function brief(text: unknown, max = 80): string {
  const characters = Array.from(String(text ?? ''));
  return characters.length <= max ? characters.join('') : `${characters.slice(0, max - 1).join('')}…`;
}

/** A value as indented JSON. */
export const json = (value: unknown): string => JSON.stringify(value, null, 2) ?? 'null';

/** A query string from the non-empty values of `params` (with `?`), or ''. */
export function query(params: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    for (const one of Array.isArray(value) ? value : [value])
      if (one !== undefined && one !== null && one !== '') search.append(name, String(one));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/**
 * FNV-1a (32 bits, hex) of the JSON text of `value`: a page that keeps itself up to date
 * (api/console/assets/console.js computes the same over its page object's `data`) puts it in its
 * `data-live` attribute, and reloads when its data no longer hashes to it.
 */
export function fingerprint(value: unknown): string {
  const text = JSON.stringify(value) ?? 'null';
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/** The delivery charts (api/console/charts.ts): SVG markup, written unescaped, and their summary's words. */
const chart = Object.freeze({
  counts: countsChart,
  latency: latencyChart,
  legend,
  summary: seriesSummary,
  bucketText,
  duration,
  span,
});

export const VIEW_HELPERS = Object.freeze({
  brief,
  time,
  iso,
  age,
  percent,
  total,
  pastEnd,
  lastPage,
  deepest,
  json,
  dotted,
  names,
  query,
  fingerprint,
  chart,
});

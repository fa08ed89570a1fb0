/**
 * The one naming rule from a config key to its environment variable: `APP_` + the key path in
 * upper snake case, levels joined by `__` (`webhooks.backoff.base` -> `APP_WEBHOOKS__BACKOFF__BASE`).
 */
export function envName(path: readonly string[]): string {
  return `APP_${path.map((part) => part.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()).join('__')}`;
}

/** Edits (insertions, deletions, substitutions) from `a` to `b`. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length];
}

/**
 * The variable of `known` that `name` is most likely a misspelling of, if one is close enough: a
 * letter or two off, or a separator (`_` for `__`, `APP_WEBHOOK_CONCURENCY` for
 * `APP_WEBHOOKS__CONCURRENCY`). Underscores are left out of the comparison, and the edits allowed
 * grow with the name (one per eight letters, at least one), so that a platform's own short
 * variable (`APP_URL`, `APP_NAME`) is not taken for one of ours.
 */
export function nearestName(name: string, known: Iterable<string>): string | undefined {
  const bare = (text: string) => text.replaceAll('_', '');
  const target = bare(name);
  const allowed = Math.max(1, Math.floor(target.length / 8));
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(target, bare(candidate));
    if (distance <= allowed && (best === undefined || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
}

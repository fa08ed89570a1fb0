/**
 * Prometheus text parsed by a real parser (`parse-prometheus-text-format`, prom2json's output
 * shape), so the tests check what a scraper sees, not what our code meant to write.
 */
import { createRequire } from 'node:module';

export interface Sample {
  value?: string;
  labels?: Record<string, string>;
  buckets?: Record<string, string>;
  count?: string;
  sum?: string;
}
export interface Family {
  name: string;
  help: string;
  type: string;
  metrics: Sample[];
}

const parse = createRequire(import.meta.url)('parse-prometheus-text-format') as (text: string) => Family[];

/** Parses a scrape into metric families by name. */
export function parseMetrics(text: string): Map<string, Family> {
  return new Map(parse(text).map((family) => [family.name, family]));
}

/** The value of `name` with exactly these labels (besides the default `process` label), or undefined. */
export function sampleValue(
  families: Map<string, Family>,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const family = families.get(name);
  const sample = family?.metrics.find((metric) =>
    Object.entries(labels).every(([key, value]) => metric.labels?.[key] === value),
  );
  if (sample === undefined) return undefined;
  return Number(sample.value ?? sample.count);
}

/**
 * The `_count` of histogram `name` for a label set, read from the scrape text (the parser keeps
 * only the buckets of histogram samples, without their labels).
 */
export function histogramCount(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    const match = new RegExp(`^${name}_count\\{([^}]*)\\} (\\S+)$`).exec(line);
    if (!match) continue;
    const pairs = Object.fromEntries(
      [...match[1].matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [pair[1], pair[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => pairs[key] === value)) return Number(match[2]);
  }
  return undefined;
}

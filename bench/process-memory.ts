/**
 * What a process of the service holds, read from outside: its resident memory from /proc and,
 * from its metrics (prom-client's default metrics and the service's own), its V8 heap used, its
 * active handles and the bytes its in-process shared store holds.
 */
import { readFileSync } from 'node:fs';

/** The bearer token of the processes' metrics (`metrics.token`) in the benchmarks that read them. */
export const METRICS_TOKEN = 'bench metrics token';

/** One reading: MB resident, MB of V8 heap used, active handles, MB the shared store holds (NaN: unreadable). */
export interface MemorySample {
  rssMb: number;
  heapMb: number;
  handles: number;
  /** `app_shared_memory_bytes` (web processes with `shared.backend: none`), in MB. */
  sharedMb: number;
}

/** Process `pid`'s memory now: VmRSS from /proc, the rest from `GET /metrics` on 127.0.0.1:`port`. */
export async function memorySample(pid: number | undefined, port: number | undefined): Promise<MemorySample> {
  let rssMb = NaN;
  try {
    const line = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (line) rssMb = Number(line[1]) / 1024;
  } catch {
    // not Linux, or the process is gone
  }
  let text = '';
  if (port !== undefined) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/metrics`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      text = await res.text();
    } catch {
      // the listener is not answering: the heap stays unknown
    }
  }
  const metric = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return {
    rssMb,
    heapMb: metric('nodejs_heap_size_used_bytes') / 2 ** 20,
    handles: metric('nodejs_active_handles_total'),
    sharedMb: metric('app_shared_memory_bytes') / 2 ** 20,
  };
}

/** The port the worker's metrics listener announced in its log. */
export function metricsPortOf(output: string): number | undefined {
  const line = output.split('\n').find((l) => l.includes('worker metrics listening'));
  if (!line) return undefined;
  return (JSON.parse(line) as { port?: number }).port;
}

/**
 * A process's V8 inspector, driven from outside (the process started with
 * `--inspect=127.0.0.1:0`): a full garbage collection and what is left after it, and heap
 * snapshots, without any code of the service's for it. What is live after a collection is what
 * the process holds; heap used read at any other moment is a sawtooth of garbage not yet swept.
 */
import { createWriteStream } from 'node:fs';

/** What a process holds right after a full collection: MB of V8 heap used, active handles and resources. */
export interface LiveSample {
  heapMb: number;
  /** `process._getActiveHandles()` (what prom-client's `nodejs_active_handles_total` counts). */
  handles: number;
  /** `process.getActiveResourcesInfo()`: handles and requests (timers, sockets, pending file system calls). */
  resources: number;
  /** MB of memory outside the V8 heap that JavaScript objects hold (Buffers among them). */
  externalMb: number;
}

export interface Inspector {
  /** Runs a full garbage collection, then reads the heap used and the handles. */
  afterCollection(): Promise<LiveSample>;
  /** Writes a heap snapshot (itself after a full collection) to `path`. */
  snapshot(path: string): Promise<void>;
  close(): void;
}

/** The inspector's WebSocket address from the process's output (`Debugger listening on ws://…`). */
export function inspectorUrlOf(output: string): string | undefined {
  return /Debugger listening on (ws:\/\/\S+)/.exec(output)?.[1];
}

const READ_LIVE = `(() => {
  const handles = process._getActiveHandles().length;
  const { heapUsed, external } = process.memoryUsage();
  return { heapUsed, external, handles, resources: process.getActiveResourcesInfo().length };
})()`;

export async function openInspector(url: string): Promise<Inspector> {
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve(), { once: true });
    socket.addEventListener('error', () => reject(new Error(`cannot open the inspector at ${url}`)), { once: true });
  });
  let next = 1;
  const waiting = new Map<number, { resolve(result: unknown): void; reject(error: Error): void }>();
  let onChunk: ((chunk: string) => void) | undefined;
  socket.addEventListener('message', (message) => {
    const data = JSON.parse(String(message.data)) as {
      id?: number;
      result?: unknown;
      error?: { message: string };
      method?: string;
      params?: { chunk?: string };
    };
    if (data.method === 'HeapProfiler.addHeapSnapshotChunk') onChunk?.(data.params?.chunk ?? '');
    if (data.id === undefined) return;
    const call = waiting.get(data.id);
    waiting.delete(data.id);
    if (data.error) call?.reject(new Error(data.error.message));
    else call?.resolve(data.result);
  });
  const send = <T>(method: string, params: Record<string, unknown> = {}) =>
    new Promise<T>((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve: resolve as (result: unknown) => void, reject });
      socket.send(JSON.stringify({ id, method, params }));
    });
  return {
    async afterCollection() {
      await send('HeapProfiler.collectGarbage');
      const answer = await send<{
        result: { value: { heapUsed: number; external: number; handles: number; resources: number } };
      }>('Runtime.evaluate', { expression: READ_LIVE, returnByValue: true });
      const { heapUsed, external, handles, resources } = answer.result.value;
      return { heapMb: heapUsed / 2 ** 20, externalMb: external / 2 ** 20, handles, resources };
    },
    async snapshot(path) {
      const file = createWriteStream(path);
      onChunk = (chunk) => file.write(chunk);
      try {
        await send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
      } finally {
        onChunk = undefined;
        await new Promise<void>((resolve) => file.end(() => resolve()));
      }
    },
    close: () => socket.close(),
  };
}

/**
 * Queues a backlog the way the benchmarks do: `count` events of `type` emitted through the core
 * `emit` to the owner-less endpoints subscribed, `parallel` at a time. Answers the deliveries
 * written.
 */
import { emit } from '../shared/webhooks/events/emit.ts';
import type { BenchDatabase } from './common.ts';

export async function emitMany(db: BenchDatabase, type: string, count: number, parallel = 4): Promise<number> {
  let next = 0;
  let written = 0;
  const deps = { config: db.config, sql: db.sql, log: db.log };
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        next += 1;
        const deliveries = await emit(deps, type, { i: next, t: 0 });
        written += deliveries.length; // not `written += (await …)`: that reads `written` before the await
      }
    }),
  );
  return written;
}

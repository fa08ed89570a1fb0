/**
 * The delivery benchmark's Redis Streams destination: each endpoint adds to a stream of its own,
 * `bench:<run>:<index>`, in database BENCH_REDIS_DB (default 15) of the local redis-server
 * (BENCH_REDIS_PORT, default 6379); one reader follows every stream with `XREAD BLOCK` and
 * reports each entry's body. The streams are deleted at the end.
 */
import { Redis } from 'ioredis';
import type { OpenBenchDestination } from './types.ts';

const port = Number(process.env.BENCH_REDIS_PORT ?? 6379);
const db = Number(process.env.BENCH_REDIS_DB ?? 15);

export const openBenchDestination: OpenBenchDestination = async (run) => {
  const streams: string[] = [];
  const reader = new Redis({ host: '127.0.0.1', port, db, lazyConnect: true, maxRetriesPerRequest: null });
  let reading: Promise<void> | undefined;
  let stopped = false;
  const follow = async (onMessage: (body: string) => void) => {
    const last = streams.map(() => '0-0');
    while (!stopped) {
      const answer = await reader.xread('COUNT', 1000, 'BLOCK', 200, 'STREAMS', ...streams, ...last);
      for (const [stream, entries] of answer ?? []) {
        const at = streams.indexOf(stream);
        for (const [id, fields] of entries) {
          last[at] = id;
          onMessage(fields.at(-1) ?? ''); // the body is the entry's last field
        }
      }
    }
  };
  return {
    url(index) {
      const stream = `bench:${run}:${index}`;
      if (!streams.includes(stream)) streams.push(stream);
      return `redis://127.0.0.1:${port}/${db}?stream=${stream}`;
    },
    async start(onMessage) {
      await reader.connect();
      reading = follow(onMessage);
    },
    async close() {
      stopped = true;
      await reading?.catch(() => undefined);
      if (streams.length > 0) await reader.del(...streams);
      reader.disconnect();
    },
  };
};

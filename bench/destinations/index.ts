/**
 * The brokers `npm run bench:delivery -- --destination <kind>` can send to instead of its HTTP
 * receiver, each loaded only when asked for.
 */
import type { OpenBenchDestination } from './types.ts';

export const BENCH_DESTINATIONS: Record<string, () => Promise<{ openBenchDestination: OpenBenchDestination }>> = {
  mqtt: () => import('./mqtt.ts'),
  redis: () => import('./redis.ts'),
};

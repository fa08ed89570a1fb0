/**
 * The brokers `npm run bench:delivery -- --destination <kind>` can send to instead of its HTTP
 * receiver, each loaded only when named (a run against HTTP loads no broker client).
 */
import type { OpenBenchDestination } from './types.ts';

type BenchModule = { openBenchDestination: OpenBenchDestination };

/** How each broker's bench destination is loaded. */
export const BENCH_DESTINATIONS: Record<string, () => Promise<BenchModule>> = {
  amqp: () => import('./amqp.ts'),
  nats: () => import('./nats.ts'),
  mqtt: () => import('./mqtt.ts'),
  redis: () => import('./redis.ts'),
};

/**
 * `--destination <kind>` (or `--destination=<kind>`) taken out of `argv`: the kind (default
 * `http`, the HTTP receiver) and the other arguments. An unknown kind is an error naming the known ones.
 */
export function destinationArg(argv: readonly string[]): { destination: string; rest: string[] } {
  const rest: string[] = [];
  let destination = 'http';
  for (let i = 0; i < argv.length; i++) {
    const match = /^--destination(?:=(.*))?$/.exec(argv[i]);
    if (match === null) rest.push(argv[i]);
    else destination = match[1] ?? argv[++i] ?? '';
  }
  if (destination !== 'http' && !Object.hasOwn(BENCH_DESTINATIONS, destination))
    throw new Error(`unknown --destination ${destination}; known: http ${Object.keys(BENCH_DESTINATIONS).join(' ')}`);
  return { destination, rest };
}

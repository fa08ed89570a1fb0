/**
 * `npm run bench:emit` (figures in BENCHMARKS.md): the time of one `emit` fanning out to 1,000
 * endpoints (the default `webhooks.maxFanout`): the event row, 1,000 delivery rows and
 * 1,000 jobs in one transaction. Measured with the per-owner endpoint cache warm (as the web
 * process runs it) and without it (the endpoints read from the table each time).
 *
 * Options: --endpoints 1000 --runs 30 (after 3 warm-up emits); --filters 1 gives every endpoint a
 * subscription filter of four conditions (a regular expression among them) that the emitted
 * event matches, so the fan-out is the same and the difference is the filters' cost (compiled
 * once per endpoint in the cache; compiled at every emit without it).
 */
import { createEndpointCache } from '../shared/webhooks/endpoints/cache.ts';
import { emit } from '../shared/webhooks/events/emit.ts';
import { benchDatabase, median, note, numberArgs, quantile, wallClock } from './common.ts';
import { registerEndpoint } from '../shared/webhooks/endpoints/index.ts';
import { OPERATOR } from '../shared/access/actor.ts';

const args = numberArgs({ endpoints: 1000, runs: 30, filters: 0 });

/** The filter of every endpoint with `--filters 1`: the benchmark's event matches it. */
const FILTER = {
  type: { $regex: '^bench\\.' },
  'data.note': 'fan-out benchmark',
  'data.run': { $gte: -3 },
  'data.region': { $in: ['eu', 'us'] },
};

async function main() {
  const db = await benchDatabase({ webhooks: { maxFanout: Math.max(1000, args.endpoints) } });
  const deps = { config: db.config, sql: db.sql, log: db.log };
  const cache = createEndpointCache(deps);
  try {
    note(`registering ${args.endpoints} endpoints`);
    for (let i = 0; i < args.endpoints; i++) {
      await registerEndpoint(deps, OPERATOR, {
        url: `http://127.0.0.1:9/in/${i}`,
        events: i % 2 === 0 ? ['bench.*'] : ['bench.fanout'],
        ...(args.filters ? { filter: FILTER } : {}),
      });
    }
    const measure = async (label: string, withCache: boolean) => {
      const times: number[] = [];
      for (let run = -3; run < args.runs; run++) {
        const started = wallClock();
        const deliveries = await emit(withCache ? { ...deps, cache } : deps, 'bench.fanout', {
          run,
          note: 'fan-out benchmark',
          region: 'eu',
        });
        const took = wallClock() - started;
        if (deliveries.length !== args.endpoints)
          throw new Error(`emit reached ${deliveries.length} endpoints, not ${args.endpoints}`);
        if (run >= 0) times.push(took);
      }
      note(`${label}: ${times.map((t) => t.toFixed(1)).join(' ')}`);
      return times;
    };
    const cached = await measure('with the endpoint cache', true);
    const uncached = await measure('without the cache', false);
    const line = (times: number[]) =>
      `median ${median(times).toFixed(1)} ms, p90 ${quantile(times, 0.9).toFixed(1)} ms, min ${Math.min(...times).toFixed(1)} ms`;
    process.stdout.write(
      `bench:emit: one emit to ${args.endpoints} endpoints${args.filters ? ', each with a filter' : ''}: ${line(cached)} with the endpoint cache; ` +
        `${line(uncached)} without (${args.runs} runs each; ${db.server})\n`,
    );
  } finally {
    await cache.close();
    await db.close();
  }
}

await main();

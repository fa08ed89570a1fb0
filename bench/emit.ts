/**
 * `npm run bench:emit` (figures in BENCHMARKS.md): the time of one `emit` fanning out to 1,000
 * endpoints (the default `webhooks.maxFanout`): the event row, 1,000 delivery rows and
 * 1,000 jobs in one transaction. Measured with the per-owner endpoint cache warm (as the web
 * process runs it) and without it (the endpoints read from the table each time).
 *
 * Options: --endpoints 1000 --runs 30 (after 3 warm-up emits); --filters 1 gives every endpoint a
 * subscription filter of four conditions (a regular expression among them) that the emitted
 * event matches, so the fan-out is the same and the difference is the filters' cost (compiled
 * once per endpoint in the cache; compiled at every emit without it); --store postgresql|mysql|disk
 * (default postgresql: the table in the service's own database). `--store mysql` puts the
 * endpoint table in a database of its own on MariaDB/MySQL (BENCH_MYSQL_URL, default
 * mysql://root@127.0.0.1:3306/), made for the run and dropped after it; `--store disk` in a new
 * temporary directory, removed after it. The store is configured and opened as the web process
 * opens it (`stores`, `webhooks.store`, on first use and behind the guard). With every store the
 * run also times the store's own reads an emit and a delivery make: `subscribers` of the
 * 1,000 endpoints (the read of an emit without the cache), first on a store just opened (a
 * pool's first connection, a disk store's first parse of its file) and then on the open one, and
 * `getMany` of 25 endpoints (a worker's batch of claims).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { createEndpointCache } from '../shared/webhooks/endpoints/cache.ts';
import { emit } from '../shared/webhooks/events/emit.ts';
import { benchDatabase, median, note, numberArgs, quantile, wallClock } from './common.ts';
import { registerEndpoint } from '../shared/webhooks/endpoints/index.ts';
import { OPERATOR } from '../shared/access/actor.ts';
import { endpointStoresOnDemand } from '../shared/webhooks/endpoint-stores/on-demand.ts';
import { quoteIdentifier } from '../shared/webhooks/endpoint-stores/mysql.ts';

/** The filter of every endpoint with `--filters 1`: the benchmark's event matches it. */
const FILTER = {
  type: { $regex: '^bench\\.' },
  'data.note': 'fan-out benchmark',
  'data.run': { $gte: -3 },
  'data.region': { $in: ['eu', 'us'] },
};

const STORES = ['postgresql', 'mysql', 'disk'] as const;
type StoreChoice = (typeof STORES)[number];

/** `--store <name>` (or `--store=<name>`) taken out of the arguments; the rest are numeric options. */
function storeArg(argv: string[]): { store: StoreChoice; rest: string[] } {
  const rest: string[] = [];
  let store: string = 'postgresql';
  for (let i = 0; i < argv.length; i++) {
    const match = /^--store(?:=(.*))?$/.exec(argv[i]);
    if (match) store = match[1] ?? argv[++i] ?? '';
    else rest.push(argv[i]);
  }
  if (!(STORES as readonly string[]).includes(store))
    throw new Error(`--store must be one of ${STORES.join(', ')}, not ${JSON.stringify(store)}`);
  return { store: store as StoreChoice, rest };
}

const { store: storeChoice, rest } = storeArg(process.argv.slice(2));
const args = numberArgs({ endpoints: 1000, runs: 30, filters: 0 }, rest);

/** Where the endpoint table goes: the `stores` entry of the configuration, and how to remove what it made. */
interface Place {
  stores: Record<string, Record<string, string>>;
  label: string;
  remove(): Promise<void>;
}

async function placeOf(choice: StoreChoice): Promise<Place> {
  if (choice === 'postgresql') return { stores: {}, label: 'the service database', remove: async () => {} };
  if (choice === 'disk') {
    const directory = await mkdtemp(join(tmpdir(), 'bench-endpoint-store-'));
    note(`endpoint table in ${directory}`);
    return {
      stores: { bench: { adapter: 'disk', path: directory } },
      label: 'disk store in a temporary directory',
      remove: () => rm(directory, { recursive: true, force: true }),
    };
  }
  const server = process.env.BENCH_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/';
  const name = `bench_${randomBytes(4).toString('hex')}`;
  const admin = await mysql.createConnection({ uri: server });
  await admin.query(`CREATE DATABASE ${quoteIdentifier(name)} CHARACTER SET utf8mb4`);
  const [[version]] = (await admin.query('SELECT VERSION() AS v')) as unknown as [{ v: string }[]];
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    stores: { bench: { adapter: 'mysql', url: url.toString() } },
    label: `mysql store on ${version.v}`,
    async remove() {
      await admin.query(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)}`);
      await admin.end();
    },
  };
}

/** Median, p90 and min of `times` in milliseconds. */
const line = (times: number[], digits = 1) =>
  `median ${median(times).toFixed(digits)} ms, p90 ${quantile(times, 0.9).toFixed(digits)} ms, min ${Math.min(...times).toFixed(digits)} ms`;

async function main() {
  const place = await placeOf(storeChoice);
  const elsewhere = storeChoice !== 'postgresql';
  const db = await benchDatabase({
    webhooks: { maxFanout: Math.max(1000, args.endpoints), ...(elsewhere ? { store: 'bench' } : {}) },
    ...(elsewhere ? { stores: place.stores } : {}),
  });
  const opened = elsewhere ? endpointStoresOnDemand(db.config, { sql: db.sql, log: db.log }) : undefined;
  const deps = { config: db.config, sql: db.sql, log: db.log, ...(opened ? { endpoints: opened.endpoints } : {}) };
  const cache = createEndpointCache(deps);
  try {
    await opened?.endpoints.install();
    note(`registering ${args.endpoints} endpoints in ${place.label}`);
    const ids: string[] = [];
    for (let i = 0; i < args.endpoints; i++) {
      const endpoint = await registerEndpoint(deps, OPERATOR, {
        url: `http://127.0.0.1:9/in/${i}`,
        events: i % 2 === 0 ? ['bench.*'] : ['bench.fanout'],
        ...(args.filters ? { filter: FILTER } : {}),
      });
      ids.push(endpoint.id);
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
    process.stdout.write(
      `bench:emit: one emit to ${args.endpoints} endpoints${args.filters ? ', each with a filter' : ''}: ${line(cached)} with the endpoint cache; ` +
        `${line(uncached)} without (${args.runs} runs each; ${db.server}; endpoint table: ${place.label})\n`,
    );
    await storeReads(ids, db, place.label);
  } finally {
    await cache.close();
    await opened?.close();
    await db.close();
    await place.remove();
  }
}

/** The store's reads on their own (see the file comment). */
async function storeReads(
  ids: readonly string[],
  db: Awaited<ReturnType<typeof benchDatabase>>,
  label: string,
): Promise<void> {
  const timed = async <T>(run: () => Promise<T>): Promise<[number, T]> => {
    const started = wallClock();
    const result = await run();
    return [wallClock() - started, result];
  };
  const first: number[] = [];
  for (let run = 0; run < Math.min(args.runs, 10); run++) {
    const fresh = endpointStoresOnDemand(db.config, { sql: db.sql, log: db.log });
    try {
      const [took, found] = await timed(() => fresh.endpoints.subscribers(null));
      if (found.length !== ids.length) throw new Error(`subscribers found ${found.length}, not ${ids.length}`);
      first.push(took);
    } finally {
      await fresh.close();
    }
  }
  const again: number[] = [];
  const many: number[] = [];
  const open = endpointStoresOnDemand(db.config, { sql: db.sql, log: db.log });
  try {
    for (let run = -3; run < args.runs; run++) {
      const [took] = await timed(() => open.endpoints.subscribers(null));
      // 25 other endpoints each run, as a worker's claims name whichever endpoints their deliveries go to
      const wanted = [...new Set(Array.from({ length: 25 }, (_, i) => ids[((run + 3) * 25 + i) % ids.length]))];
      const [manyTook, found] = await timed(() => open.endpoints.getMany(wanted));
      if (found.length !== wanted.length) throw new Error(`getMany found ${found.length}, not ${wanted.length}`);
      if (run >= 0) {
        again.push(took);
        many.push(manyTook);
      }
    }
  } finally {
    await open.close();
  }
  process.stdout.write(
    `bench:emit: ${label}: subscribers of ${ids.length}: ${line(first, 2)} on a store just opened (${first.length} runs); ` +
      `${line(again, 2)} on the open store; getMany of 25: ${line(many, 2)} (${args.runs} runs)\n`,
  );
}

await main();

/**
 * Every benchmark (`npm run bench:*`, bench/) still runs: each is started as `npm run` starts it,
 * at a size small enough for seconds, on the suite's PostgreSQL (DATABASE_URL: a throwaway
 * database of its own, dropped after), and must exit 0 having printed its summary on stdout. The
 * figures of so small a run mean nothing; what is checked is that the script gets to its end
 * (a renamed field, a changed signature or a changed answer stops a benchmark at its first use,
 * not at its type check) and that its summary still has its shape.
 *
 * `bench:delivery -- --destination <kind>` runs once for each broker of bench/destinations/ and
 * `bench:emit -- --store mysql` on MariaDB: the brokers and MariaDB the other tests use, at their
 * default ports on 127.0.0.1.
 *
 * Left out, because it cannot run that small: `bench:chaos`. Its chaos is a fixed list of
 * actions (three worker kills, two drains, two PostgreSQL restarts, a receiver hanging and a
 * receiver failing for 15 s each) with seconds between them: over two minutes at its smallest
 * (`--events 20 --rate 5 --fanout 20 --fanout-kills 1`), which it still runs to its end.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BENCH_DESTINATIONS } from '../../bench/destinations/index.ts';
import { ROOT, spawnNode } from '../helpers/processes.ts';

interface Bench {
  /** The script under bench/, as its `npm run bench:<name>` runs it. */
  name: string;
  /** Its options at their smallest useful size, as typed after `npm run bench:<name> --`. */
  options: string;
  /** Lines its stdout must hold: the summary's shape. */
  summary: RegExp[];
}

const DELIVERY_OPTIONS = '--deliveries 20 --endpoints 2 --rate 10 --seconds 1 --runs 1';
const DELIVERY_SUMMARY =
  /^bench:delivery: \d+ deliveries\/s sustained \(20 deliveries to 2 endpoints\); emit->receiver p50 [\d.]+ ms/m;

const BENCHES: Bench[] = [
  { name: 'delivery', options: DELIVERY_OPTIONS, summary: [DELIVERY_SUMMARY, /; destination http; /] },
  ...Object.keys(BENCH_DESTINATIONS).map((kind) => ({
    name: 'delivery',
    options: `--destination ${kind} ${DELIVERY_OPTIONS}`,
    summary: [DELIVERY_SUMMARY, new RegExp(`; destination ${kind}; `)],
  })),
  {
    name: 'emit',
    options: '--endpoints 3 --runs 2 --filters 1',
    summary: [
      /^bench:emit: one emit to 3 endpoints, each with a filter: median [\d.]+ ms/m,
      /^bench:emit: the service database: subscribers of 3: median [\d.]+ ms/m,
    ],
  },
  ...['disk', 'mysql'].map((store) => ({
    name: 'emit',
    options: `--store ${store} --endpoints 3 --runs 2`,
    summary: [
      new RegExp(`^bench:emit: one emit to 3 endpoints: median [\\d.]+ ms.*; endpoint table: ${store} store`, 'm'),
      new RegExp(`^bench:emit: ${store} store .*: subscribers of 3: median [\\d.]+ ms`, 'm'),
    ],
  })),
  {
    name: 'cli',
    options: '--runs 1',
    summary: [/^app --help\s+median \d+\.\d{3}/m, /^app webhooks:list\s+median \d+\.\d{3}/m],
  },
  {
    name: 'retention',
    options: '--history 500 --runs 1 --steps 1 --hours 1',
    summary: [
      /^bench:retention \(500 deliveries over 90 days/m,
      /^after the prunes: emit [\d.]+ ms, claim [\d.]+ ms, first page [\d.]+ ms/m,
      /^hourly prune: median [\d.]+ s/m,
    ],
  },
  {
    name: 'partition-migration',
    options: '--rows 200 --runs 1',
    summary: [/^migration 023: [\d.]+ s$/m, /^longest writer statement meanwhile: [\d.]+ ms/m],
  },
  {
    name: 'sustained',
    options: '--rate 10 --seconds 1 --sample 1 --backlog 40 --only 1 --drain-timeout 30',
    summary: [
      /^bench:sustained drain: 40 deliveries, 1 endpoint \d+\/s, 100 endpoints \d+\/s/m,
      /^bench:sustained 1 endpoint: offered 10 deliveries\/s .* delivered \d+\/s in the first minute/m,
    ],
  },
  {
    name: 'queue',
    options: '--waiting 300 --measure 200 --runs 1',
    summary: [/^bench:queue: graphile-worker no-op rate/m, /^ {2}300 waiting: \d+ jobs\/s/m],
  },
  {
    name: 'scale',
    options:
      '--workers 1 --webs 1 --deliveries 40 --endpoints 2 --seconds 1 --warmup 1 --connections 2 --api-deliveries 50 --runs 1 --pickups 2',
    summary: [
      /^bench:scale api 1 web: \d+ req\/s/m,
      /^bench:scale delivery 1 worker: \d+ deliveries\/s/m,
      /^\(medians of 1 rounds; 40 deliveries to 2 endpoints/m,
    ],
  },
  {
    name: 'series',
    options: '--history 500 --runs 1',
    summary: [
      /^migration 030 \(index built on every attempts partition\): [\d.]+ s$/m,
      /^last 24 h per hour, every tenant: [\d.]+ ms/m,
    ],
  },
  {
    name: 'listings',
    options: '--history 500 --runs 1 --calls 2',
    summary: [/^bench:listings \(500 deliveries over 90 days/m, /^tenant page: [\d.]+ ms a call/m],
  },
  {
    name: 'shared-memory',
    options: '--writes 20000 --mb 1 --block 5000 --runs 1',
    summary: [/^bench:shared-memory: slowest block once full [\d.]+ µs a write/m, /^bench:shared-memory: heap held/m],
  },
  {
    name: 'tenants',
    options: '--endpoints 100 --owners 10 --users 10 --tokens 10 --calls 2 --explain 1',
    summary: [/^bench:tenants \(100 endpoints over 10 owners/m, /^Tenants page 1 \(50 a page\): [\d.]+ ms a call/m],
  },
  {
    name: 'web-memory',
    options: '--seconds 2 --sample 1 --rate 10 --endpoints 2 --tokens 10 --ips 10 --users 1',
    summary: [/^bench:web-memory: \d+ requests in 2 s/m, /^ {2}minute 1: RSS [\d.]+ MB, heap after a full collection/m],
  },
  {
    name: 'api',
    options: '--seconds 1 --warmup 0 --runs 1 --deliveries 50 --endpoints 5 --connections 2',
    summary: [/^bench:api: GET \S+\?per_page=25: full stack \d+ req\/s .* GraphQL webhookDeliveries/m],
  },
];

/** The benchmarks left out (see the file comment). */
const LEFT_OUT = ['chaos'];

/** How long one benchmark may run here before it counts as hung. */
const DEADLINE_MS = 90_000;

describe('every benchmark runs at a tiny size to its summary', { concurrency: 3 }, () => {
  it('every bench:* script of package.json is run here or named as left out', () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const declared = Object.entries(scripts)
      .filter(([name]) => name.startsWith('bench:'))
      .map(([, command]) => /^node bench\/([\w-]+)\.ts$/.exec(command)?.[1] ?? command)
      .sort();
    assert.deepEqual(declared, [...new Set([...BENCHES.map((bench) => bench.name), ...LEFT_OUT])].sort());
  });

  for (const bench of BENCHES) {
    it(`bench:${bench.name} ${bench.options} exits 0 and prints its summary`, async () => {
      const run = spawnNode(
        `bench/${bench.name}.ts`,
        { DATABASE_URL: process.env.TEST_DATABASE_URL, BENCH_MYSQL_URL: process.env.TEST_MYSQL_URL },
        bench.options.split(' '),
      );
      let stdout = '';
      run.child.stdout?.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      const closed = new Promise((resolve) => run.child.once('close', resolve));
      const exit = await run.exitedWithin(DEADLINE_MS).catch((error: Error) => {
        run.child.kill('SIGKILL');
        throw error;
      });
      await closed; // its output read to the end
      assert.equal(
        exit.code,
        0,
        `bench:${bench.name} exited ${exit.code ?? exit.signal}:\n${run.output().slice(-4000)}`,
      );
      for (const line of bench.summary) assert.match(stdout, line, `bench:${bench.name}'s stdout:\n${stdout}`);
    });
  }
});

/**
 * `npm run bench:shared-memory`: what a write to the in-memory shared store costs under a flood
 * at its bound (`shared.maxMemoryBytes`, 64 MB by default), the way failed sign-ins against many
 * distinct accounts, or one hit from each of many addresses, reach it: every write of a new key
 * evicts the oldest. Each write runs on the web process's event loop, so its cost is how long
 * every request of that process waits behind one such write.
 *
 * Options: --writes 2000000 --mb 64 --block 200000 --runs 3. Prints the microseconds a write
 * took in each block of `--block` writes (the first blocks fill the store, the rest evict), and
 * the median over the runs of each run's slowest block once the store is full.
 *
 * Then what an entry holds against what it is counted as: for a rate-limit count, a sign-in
 * lockout slot and an idempotency answer of about 1 kB, 50,000 entries in a store of their own,
 * the heap used after a full collection before and after, per entry, against the bytes the store
 * counts per entry (`entryBytes`): the bound `shared.maxMemoryBytes` holds only while the count is
 * at least what an entry holds.
 */
import { randomBytes } from 'node:crypto';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { memoryEntries } from '../shared/stores/memory.ts';
import { median, note, numberArgs } from './common.ts';

const args = numberArgs({ writes: 2_000_000, mb: 64, block: 200_000, runs: 3 });
// a lockout failure slot as shared/accounts/lockout.ts writes one
const value = { failures: 1, at: 1_700_000_000_000 };
const slowest: number[] = [];
// each run and each count in a function of its own: a suspended top-level await keeps what its
// frame held, and a store left reachable would be counted against the entries measured after it
const timedRun = async (run: number) => {
  const store = memoryEntries({ maxBytes: args.mb * 1024 * 1024 });
  const blocks: number[] = [];
  let started = performance.now();
  let fullAt = -1;
  for (let n = 0; n < args.writes; n++) {
    await store.set(`lockout:someone-${n}@example.com:0`, value, 15 * 60_000);
    if (fullAt < 0 && store.bytes > args.mb * 1024 * 1024 * 0.99) fullAt = Math.floor(n / args.block);
    if ((n + 1) % args.block === 0) {
      const now = performance.now();
      blocks.push(((now - started) * 1000) / args.block);
      started = now;
    }
  }
  const evicting = blocks.slice(Math.max(fullAt + 1, 0));
  slowest.push(Math.max(...evicting));
  note(
    `run ${run}: µs a write per block of ${args.block}: ${blocks.map((b) => b.toFixed(1)).join(' ')} (full from block ${fullAt + 1}, ${store.size} entries held)`,
  );
};
for (let run = 1; run <= args.runs; run++) await timedRun(run);
process.stdout.write(
  `bench:shared-memory: slowest block once full ${median(slowest).toFixed(1)} µs a write (median of ${args.runs} runs; ${args.writes} writes at a ${args.mb} MB bound)\n`,
);

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;
const ENTRIES = 50_000;
const kinds: Record<string, (n: number) => [string, unknown]> = {
  'rate-limit count': (n) => [`rate:api:10.${n >> 16}.${(n >> 8) & 255}.${n & 255}`, 0],
  'lockout slot': (n) => [`lockout:someone-${n}@example.com:0`, value],
  'idempotency answer (1 kB)': () => [
    `idem:tok_${randomBytes(8).toString('hex')}:${randomBytes(16).toString('hex')}`,
    { status: 202, body: randomBytes(750).toString('base64') },
  ],
};
const perEntry = async (entryOf: (n: number) => [string, unknown]) => {
  collect();
  const before = process.memoryUsage().heapUsed;
  const store = memoryEntries({});
  for (let n = 0; n < ENTRIES; n++) {
    const [key, entry] = entryOf(n);
    await store.set(key, entry as never, 86_400_000);
  }
  collect();
  return { held: (process.memoryUsage().heapUsed - before) / ENTRIES, counted: store.bytes / ENTRIES };
};
const ratios: string[] = [];
for (const [kind, entryOf] of Object.entries(kinds)) {
  const { held, counted } = await perEntry(entryOf);
  ratios.push(`${kind} ${(held / counted).toFixed(2)}`);
  note(`${kind}: ${held.toFixed(0)} bytes held an entry, counted as ${counted.toFixed(0)}`);
}
process.stdout.write(`bench:shared-memory: heap held against bytes counted, an entry: ${ratios.join(', ')}\n`);

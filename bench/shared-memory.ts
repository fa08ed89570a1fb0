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
 */
import { memoryEntries } from '../shared/stores/memory.ts';
import { median, note, numberArgs } from './common.ts';

const args = numberArgs({ writes: 2_000_000, mb: 64, block: 200_000, runs: 3 });
// a lockout failure slot as shared/accounts/lockout.ts writes one
const value = { failures: 1, at: 1_700_000_000_000 };
const slowest: number[] = [];
for (let run = 1; run <= args.runs; run++) {
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
}
process.stdout.write(
  `bench:shared-memory: slowest block once full ${median(slowest).toFixed(1)} µs a write (median of ${args.runs} runs; ${args.writes} writes at a ${args.mb} MB bound)\n`,
);

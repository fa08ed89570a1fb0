/**
 * The `none` backend's entries and rate-limit keys stay within `shared.maxMemoryBytes`: a write
 * past it evicts, among the entries of the lowest priority, the oldest of the kind holding the
 * most bytes (expired ones go without counting as evicted), so entries holding a refusal go
 * last; the evictions are logged at once, then at most once a minute.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resolveConfig } from '../../../shared/config/index.ts';
import { createLogger } from '../../../shared/log/logger.ts';
import {
  EVICTION_LOG_INTERVAL_MS,
  entryBytes,
  evictionWarning,
  memoryEntries,
  memoryStore,
} from '../../../shared/stores/memory.ts';
import { linesInto } from '../../helpers/logs.ts';

const DAY = 24 * 60 * 60 * 1000;
const answer = (n: number) => ({ status: 202, body: `answer ${n} ${'x'.repeat(900)}` });
const ANSWER_BYTES = entryBytes('idem:000', JSON.stringify(answer(100)));

describe('memory entries bounded by bytes', () => {
  it('never hold more than maxBytes, evicting the oldest written first', async () => {
    const evicted: string[] = [];
    const entries = memoryEntries({ maxBytes: 10 * ANSWER_BYTES, onEvict: (key) => evicted.push(key) });
    for (let n = 100; n < 400; n += 1) {
      await entries.set(`idem:${n}`, answer(n), DAY);
      assert.ok(entries.bytes <= 10 * ANSWER_BYTES, `${entries.bytes} bytes after ${n}`);
    }
    assert.equal(entries.size, 10);
    assert.deepEqual(await entries.get('idem:399'), answer(399), 'the newest answer replays');
    assert.deepEqual(await entries.get('idem:390'), answer(390));
    assert.equal(await entries.get('idem:389'), undefined, 'the oldest went first');
    assert.deepEqual(evicted.slice(0, 3), ['idem:100', 'idem:101', 'idem:102']);
    assert.equal(evicted.length, 290);
  });

  it('count a stored answer at its size, and an entry written again as the newest', async () => {
    const entries = memoryEntries({ maxBytes: 3 * ANSWER_BYTES });
    await entries.set('idem:100', answer(100), DAY);
    assert.equal(entries.bytes, ANSWER_BYTES);
    await entries.set('idem:101', answer(101), DAY);
    await entries.set('idem:102', answer(102), DAY);
    await entries.set('idem:100', answer(100), DAY); // its claim answered: written again
    assert.equal(entries.bytes, 3 * ANSWER_BYTES, 'replacing an entry does not count it twice');
    await entries.set('idem:103', answer(103), DAY);
    assert.equal(await entries.get('idem:101'), undefined, 'the oldest write went');
    assert.deepEqual(await entries.get('idem:100'), answer(100), 'the rewritten one stayed');
    await entries.delete('idem:100');
    assert.equal(entries.bytes, 2 * ANSWER_BYTES);
  });

  it('keep evicting the oldest written first across rewrites and deletes, the way a plain list of writes says', async () => {
    // the evictions read on from where the last one left off: checked against a model of the
    // order of writes under interleaved rewrites (an entry written again is the newest), deletes
    // and thousands of evictions, enough for the Map under it to be rebuilt many times
    const evicted: string[] = [];
    const keyOf = (n: number) => `idem:${String(n).padStart(4, '0')}`; // every entry the same size
    const bytes = entryBytes(keyOf(0), JSON.stringify(answer(100)));
    const entries = memoryEntries({ maxBytes: 50 * bytes, onEvict: (key) => evicted.push(key) });
    const order: string[] = []; // the keys held, oldest written first
    const expected: string[] = [];
    const write = async (key: string) => {
      const at = order.indexOf(key);
      if (at >= 0) order.splice(at, 1);
      order.push(key);
      await entries.set(key, answer(100), DAY);
      while (order.length > 50) expected.push(order.shift() as string);
    };
    for (let n = 0; n < 5_000; n += 1) {
      await write(keyOf(n));
      if (n % 7 === 0 && order.length > 10) await write(order[3]); // an older entry written again
      if (n % 11 === 0 && order.length > 10) {
        const [gone] = order.splice(5, 1);
        await entries.delete(gone);
      }
    }
    assert.deepEqual(evicted, expected);
    assert.equal(entries.size, order.length);
    for (const key of order) assert.ok(await entries.get(key), `${key} is held`);
  });

  it('drop expired entries on the way without counting them as evicted', async () => {
    let clock = 1_000_000;
    const evicted: string[] = [];
    const entries = memoryEntries({
      now: () => clock,
      maxBytes: 3 * ANSWER_BYTES,
      onEvict: (key) => evicted.push(key),
    });
    await entries.set('idem:100', answer(100), 1000);
    await entries.set('idem:101', answer(101), DAY);
    await entries.set('idem:102', answer(102), DAY);
    clock += 1000;
    await entries.set('idem:103', answer(103), DAY);
    assert.deepEqual(evicted, [], 'the expired entry made room');
    assert.equal(entries.bytes, 3 * ANSWER_BYTES);
    assert.equal(entries.size, 3);
    assert.deepEqual(await entries.get('idem:101'), answer(101));
  });

  it('take the room from the kind holding the most: a flood of answers leaves the lockout slots alone', async () => {
    const evicted: string[] = [];
    const entries = memoryEntries({ maxBytes: 20 * ANSWER_BYTES, onEvict: (key) => evicted.push(key) });
    for (let slot = 0; slot < 5; slot += 1) await entries.add(`lockout:victim:${slot}`, 1_000_000, DAY);
    for (let n = 100; n < 600; n += 1) await entries.set(`idem:${n}`, answer(n), DAY);
    for (let slot = 0; slot < 5; slot += 1) assert.equal(await entries.get(`lockout:victim:${slot}`), 1_000_000);
    assert.ok(evicted.length > 0 && evicted.every((key) => key.startsWith('idem:')));
    assert.ok(entries.bytes <= 20 * ANSWER_BYTES);
  });

  it('evict the lowest priority first: a flood of plain entries never evicts one holding a refusal; once only those are left, the lowest and oldest go', async () => {
    const evicted: Array<[string, number]> = [];
    const entries = memoryEntries({
      maxBytes: 20 * ANSWER_BYTES,
      onEvict: (key, priority) => evicted.push([key, priority]),
    });
    await entries.set('lockout:victim:locked', { until: 1 }, DAY, { priority: 5 });
    await entries.add('lockout:victim:3', 1, DAY, { priority: 3 });
    await entries.add('rate:global:ip', 0, DAY, { priority: 600 });
    for (let n = 100; n < 600; n += 1) await entries.add(`lockout:flood-${n}:0`, n, DAY);
    for (let n = 100; n < 600; n += 1) await entries.set(`idem:${n}`, answer(n), DAY);
    assert.deepEqual(await entries.get('lockout:victim:locked'), { until: 1 });
    assert.equal(await entries.get('lockout:victim:3'), 1);
    assert.equal(await entries.get('rate:global:ip'), 0);
    assert.ok(evicted.length > 900 && evicted.every(([, priority]) => priority === 0));
    assert.ok(entries.bytes <= 20 * ANSWER_BYTES);

    evicted.length = 0;
    for (let n = 100; n < 400; n += 1)
      await entries.set(`lockout:held-${n}:locked`, { until: n }, DAY, { priority: 5 });
    assert.ok(entries.bytes <= 20 * ANSWER_BYTES);
    const refusing = evicted.filter(([, priority]) => priority > 0).map(([key]) => key);
    assert.deepEqual(
      refusing.slice(0, 2),
      ['lockout:victim:3', 'lockout:victim:locked'],
      'the lower priority first, then the oldest of the same',
    );
    assert.equal(await entries.get('rate:global:ip'), 0, 'a higher priority than the flood stays');
  });
});

/** An eviction warning by the clock `now` reads, and the lines it logs. */
function warningInto(now: () => number) {
  const lines: Array<Record<string, unknown>> = [];
  const { config } = resolveConfig({ env: { NODE_ENV: 'test' } });
  const log = createLogger(config, { name: 'test', destination: linesInto(lines) });
  return { lines, warn: evictionWarning(log, { maxBytes: 1024, now }) };
}

describe('eviction warning', () => {
  it('logs the first eviction at once, then at most one line a minute with the count since the last', () => {
    let clock = 1_000_000;
    const { lines, warn } = warningInto(() => clock);
    warn('idem:a');
    assert.equal(lines.length, 1);
    assert.equal(lines[0].level, 40);
    assert.equal(lines[0].kind, 'idem');
    for (let i = 0; i < 50; i += 1) {
      clock += 1000;
      warn('idem:b');
    }
    assert.equal(lines.length, 1, 'quiet within the minute');
    clock += EVICTION_LOG_INTERVAL_MS;
    warn('lockout:c');
    assert.equal(lines.length, 2);
    assert.equal(lines[1].evicted, 51);
    assert.match(String(lines[1].msg), /shared\.maxMemoryBytes/);
  });

  it('says how many evicted entries held a refusal, which only a bound full of refusals gives up', () => {
    let clock = 1_000_000;
    const { lines, warn } = warningInto(() => clock);
    warn('idem:a');
    assert.equal(lines[0].refusing, 0);
    assert.doesNotMatch(String(lines[0].msg), /refusal/);
    warn('lockout:b:locked', 5);
    warn('lockout:c:0', 0);
    clock += EVICTION_LOG_INTERVAL_MS;
    warn('rate:global:ip', 600);
    assert.equal(lines.length, 2);
    assert.equal(lines[1].evicted, 3);
    assert.equal(lines[1].refusing, 2);
    assert.match(String(lines[1].msg), /2 of them held a refusal/);
  });

  it('the store of shared.backend none bounds its entries, logs and reports through its watch', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const { config } = resolveConfig({ env: { NODE_ENV: 'test' } });
    const log = createLogger(config, { name: 'test', destination: linesInto(lines) });
    const kinds: string[] = [];
    let bytes = 0;
    const store = memoryStore({
      log,
      logFailure: () => {},
      maxBytes: 4 * ANSWER_BYTES,
      watch: { evicted: (kind) => kinds.push(kind), bytes: (held) => (bytes = held) },
    });
    for (let n = 100; n < 110; n += 1) await store.entries.set(`idem:${n}`, answer(n), DAY);
    assert.equal(bytes, 4 * ANSWER_BYTES);
    assert.deepEqual(kinds, Array(6).fill('idem'));
    assert.equal(lines.length, 1);
  });

  it("counts the rate-limit counters' keys against the bound: a flood of distinct keys forgets the oldest counts under their limit, never a client's at its limit", async () => {
    let bytes = 0;
    const kinds = new Set<string>();
    const store = memoryStore({
      logFailure: () => {},
      maxBytes: 2 * ANSWER_BYTES,
      watch: { evicted: (kind) => kinds.add(kind), bytes: (held) => (bytes = held) },
    });
    const counter = store.counter({ name: 'route:POST /orders', points: 2, windowMs: 60_000 });
    await counter.hit('ip:10.0.0.1');
    assert.equal((await counter.hit('ip:10.0.0.1')).remaining, 0);
    assert.equal((await counter.hit('ip:10.0.0.1')).allowed, false, 'counted while its key is held');
    await counter.hit('ip:10.0.0.2');
    let n = 0;
    for (; n < 10_000 && bytes < 2 * ANSWER_BYTES - 200; n += 1) await counter.hit(`ip:10.1.${n >> 8}.${n & 255}`);
    for (let more = 0; more < 500; more += 1, n += 1) {
      await counter.hit(`ip:10.1.${n >> 8}.${n & 255}`);
      assert.ok(bytes <= 2 * ANSWER_BYTES, `${bytes} bytes`);
    }
    assert.deepEqual([...kinds], ['rate']);
    const refused = await counter.hit('ip:10.0.0.1');
    assert.equal(refused.allowed, false, 'the client at its limit stays refused: its count holds a refusal');
    const again = await counter.hit('ip:10.0.0.2');
    assert.equal(again.allowed, true);
    assert.equal(again.remaining, 1, 'the count under its limit was evicted: the key starts a new window');
  });
});

/**
 * Group commit for the worker's queries (so outcomes are recorded with as few round trips as
 * possible). Items handed to `add` while no flush is running go out together on the
 * next turn of the event loop; items arriving while a flush is in flight wait for it and go out
 * together right after. At low load an item waits for nothing; at high load one statement
 * carries as many items as arrived during one round trip (up to `maxSize`).
 *
 * When a batch fails, its items are run one by one, so one bad item cannot fail the others.
 */

export interface Batcher<In, Out> {
  add(item: In): Promise<Out>;
}

interface Pending<In, Out> {
  item: In;
  resolve(value: Out): void;
  reject(error: unknown): void;
}

/**
 * `run` performs a batch and answers one result per item, in order. At most `maxInFlight`
 * batches run at once (default 1). `runOne` (default: `run` with a batch of one) is used item
 * by item when a batch fails.
 */
export function createBatcher<In, Out>(
  run: (items: In[]) => Promise<Out[]>,
  options: { maxSize: number; maxInFlight?: number; runOne?: (item: In) => Promise<Out> },
): Batcher<In, Out> {
  const queue: Pending<In, Out>[] = [];
  const maxInFlight = options.maxInFlight ?? 1;
  let inFlight = 0;
  let scheduled = false;
  const runOne = options.runOne ?? (async (item: In) => (await run([item]))[0]);

  async function runBatch(batch: Pending<In, Out>[]): Promise<void> {
    try {
      const results = await run(batch.map((entry) => entry.item));
      batch.forEach((entry, i) => {
        entry.resolve(results[i]);
      });
    } catch (error) {
      if (batch.length === 1) batch[0].reject(error);
      else await Promise.all(batch.map((entry) => runOne(entry.item).then(entry.resolve, entry.reject)));
    }
  }

  function start(): void {
    scheduled = false;
    while (inFlight < maxInFlight && queue.length > 0) {
      inFlight += 1;
      void runBatch(queue.splice(0, options.maxSize)).finally(() => {
        inFlight -= 1;
        schedule();
      });
    }
  }

  function schedule(): void {
    if (scheduled || inFlight >= maxInFlight || queue.length === 0) return;
    scheduled = true;
    setImmediate(start);
  }

  return {
    add(item) {
      return new Promise<Out>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        schedule();
      });
    },
  };
}

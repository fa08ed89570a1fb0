/**
 * The worker process as `npm run bench:delivery` runs it: the real worker (worker/run.ts) plus
 * `app/noop`, a task that does nothing, so the benchmark can measure graphile-worker's own rate
 * on the same database. The service itself never registers `app/noop`.
 */
import { runWorker } from '../worker/run.ts';

await runWorker({ extraTasks: { 'app/noop': async () => {} } });

/** The `worker` process (Procfile `worker`): `node worker/main.ts`. */
import { runWorker } from './run.ts';

await runWorker();

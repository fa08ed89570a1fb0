/** The `web` process (Procfile `web`): `node api/main.ts`. */
import { runWeb } from './run.ts';

await runWeb();

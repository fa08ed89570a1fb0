import { fileURLToPath } from 'node:url';

/**
 * Where `npm start` records the embedded PostgreSQL it is running (`{url, pid}`), so that the
 * CLI in a second terminal finds it without setup. Written by deploy/local/start.ts, read by
 * cli/context.ts.
 */
export const LOCAL_DATABASE_FILE = fileURLToPath(new URL('../../.data/postgres.json', import.meta.url));

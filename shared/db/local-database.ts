import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Where `npm start` records the embedded PostgreSQL it is running (`{url, pid, allowLocal,
 * webUrl}`), so that the CLI in a second terminal finds it without setup. Written by
 * deploy/local/start.ts, read by cli/context.ts.
 */
export const LOCAL_DATABASE_FILE = fileURLToPath(new URL('../../.data/postgres.json', import.meta.url));

/** What a running `npm start` records for the CLI. */
export interface LocalState {
  /** The embedded database. */
  url: string;
  /** The embedded PostgreSQL's process: the record holds while it lives. */
  pid: number;
  /** Started with `--allow-local`: receivers on http and loopback or private addresses allowed. */
  allowLocal: boolean;
  /** Where its web process answers (`http://localhost:<port>`), for the links the CLI prints. */
  webUrl?: string;
}

/**
 * The record of `file` when it names a live process, else undefined (no `npm start` running, or
 * one that was killed before it could remove its record). A `webUrl` that is not an http(s) URL
 * is left out.
 */
export function readLocalState(file: string = LOCAL_DATABASE_FILE): LocalState | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const state = JSON.parse(readFileSync(file, 'utf8')) as Partial<LocalState>;
    if (typeof state.url !== 'string' || typeof state.pid !== 'number') return undefined;
    process.kill(state.pid, 0);
    const webUrl =
      typeof state.webUrl === 'string' && /^https?:\/\/[^/]+$/.test(state.webUrl) ? state.webUrl : undefined;
    return { url: state.url, pid: state.pid, allowLocal: state.allowLocal === true, ...(webUrl ? { webUrl } : {}) };
  } catch {
    return undefined;
  }
}

/**
 * The oldest PostgreSQL the service runs on, and the check every process makes of its server at
 * start (the web process, the worker, `app migrate` and the CLI's other commands that open the
 * database). PostgreSQL 15 is the minimum: the migrations declare a `unique nulls not distinct`
 * constraint (migrations/026) and the test harness clones databases with
 * `create database … strategy file_copy`, both new in 15. The suite runs on the embedded
 * PostgreSQL 18, and test/shared/db/oldest-server.test.ts runs the migrations and a delivery on a
 * PostgreSQL 15 when one answers at 127.0.0.1:5432 (as in CI).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../errors/app-error.ts';
import type { Queryable } from './connect.ts';

/** `server_version_num` of the oldest server supported: 150000 is PostgreSQL 15.0. */
export const MINIMUM_SERVER_VERSION_NUM = 150_000;

/** `15.4` for 150004, `9.6.24` for 90624: the release `server_version_num` stands for. */
export function serverVersionText(versionNum: number): string {
  const major = Math.floor(versionNum / 10_000);
  if (major >= 10) return `${major}.${versionNum % 10_000}`;
  return `${major}.${Math.floor(versionNum / 100) % 100}.${versionNum % 100}`;
}

/** The line that refuses a server older than the minimum, or undefined when `versionNum` is supported. */
export function serverVersionProblem(versionNum: number): string | undefined {
  if (versionNum >= MINIMUM_SERVER_VERSION_NUM) return undefined;
  return (
    `the database server runs PostgreSQL ${serverVersionText(versionNum)}, older than the minimum this service ` +
    `supports, PostgreSQL ${Math.floor(MINIMUM_SERVER_VERSION_NUM / 10_000)}: upgrade the server`
  );
}

/**
 * The refusal of a server older than the minimum: code `APP_DATABASE_UNSUPPORTED`, its message
 * the one line of serverVersionProblem (the CLI exits 1 with it; the web process and the worker
 * log it and exit 1).
 */
export class UnsupportedServerError extends AppError {
  readonly versionNum: number;
  constructor(message: string, versionNum: number) {
    super(500, message, { code: 'APP_DATABASE_UNSUPPORTED', data: { serverVersionNum: versionNum } });
    this.versionNum = versionNum;
  }
}

export const isUnsupportedServer = (error: unknown): error is UnsupportedServerError =>
  error instanceof UnsupportedServerError;

/**
 * Reads the server's `server_version_num` on `sql` and answers it, or throws UnsupportedServerError
 * when it is older than the minimum. A database that cannot be reached fails as any query does.
 */
export async function requireSupportedServer(sql: Queryable): Promise<number> {
  const [{ version }] = await sql<{ version: number }[]>`
    select current_setting('server_version_num')::int as version`;
  const problem = serverVersionProblem(version);
  if (problem !== undefined) throw new UnsupportedServerError(problem, version);
  return version;
}

/**
 * requireSupportedServer, asked again until the server answers (after `initialDelayMs`, default
 * 1 s, doubling to 30 s): for a process that must not wait for its database to start (the web
 * process keeps answering `/livez`). Resolves with the server's `server_version_num`, or
 * undefined once `signal` aborts; rejects with UnsupportedServerError. A database that cannot
 * be reached, or refuses `DATABASE_URL`, is asked again without a word: readiness and the boot's
 * other steps say so.
 */
export async function requireSupportedServerOnceReachable(
  sql: Queryable,
  options: { signal?: AbortSignal; initialDelayMs?: number } = {},
): Promise<number | undefined> {
  for (let delay = options.initialDelayMs ?? 1000; ; delay = Math.min(delay * 2, 30_000)) {
    if (options.signal?.aborted) return undefined;
    try {
      return await requireSupportedServer(sql);
    } catch (error) {
      if (isUnsupportedServer(error)) throw error;
    }
    await sleep(delay, undefined, { signal: options.signal }).catch(() => undefined);
  }
}

/**
 * `app secrets:seal`: brings every stored signing secret under the current
 * application secret. Secrets stored `plain:` (made before `APP_SECRET` was set) are encrypted;
 * secrets sealed under a previous application secret are opened with it (`fromSecret`) and sealed
 * again under the current one, so the application secret can be rotated without rotating every
 * endpoint's signing secret. Rows already sealed under the current key are left alone, so a run
 * can be repeated (or interrupted) safely. Works in batches, each in its own transaction with the
 * rows locked, so deliveries go on meanwhile.
 */
import { unprocessable } from '../errors/app-error.ts';
import type { Sql } from '../db/connect.ts';
import type { Config } from '../config/index.ts';
import { createSecretBox, type SecretBox } from './secret-box.ts';
import { headerBox } from './endpoints/header-box.ts';

export interface ResealResult {
  /** Rows sealed under the current key by this run (or that would be, with `dryRun`). */
  resealed: number;
  /** Endpoints whose header values were sealed again (shared/webhooks/endpoints/header-box.ts). */
  headers: number;
  /** Rows already sealed under the current key. */
  current: number;
  /** Rows that neither key opens: their endpoints need `webhooks:rotate`. */
  unreadable: Array<{ id: string; endpointId: string }>;
  dryRun: boolean;
}

const BATCH = 500;

interface SecretRow {
  id: string;
  endpoint_id: string;
  sealed: string;
}

/** One batch of secret rows after `afterId`, locked for the transaction. */
const lockBatch = (tx: Sql, afterId: string) => tx<SecretRow[]>`
  select id::text, endpoint_id, sealed from app_webhook_secrets
   where id > ${afterId}::bigint order by id limit ${BATCH} for update`;

const updateSealed = (tx: Sql, rows: { id: string; sealed: string }[]) => tx`
  update app_webhook_secrets as s set sealed = v.sealed
    from unnest(${rows.map((row) => row.id)}::bigint[], ${rows.map((row) => row.sealed)}::text[]) as v(id, sealed)
   where s.id = v.id`;

/** What the row should hold under `current`, or null when it is current, or 'unreadable'. */
function resealed(row: SecretRow, current: SecretBox, previous: SecretBox | undefined): string | null | 'unreadable' {
  if (current.sealedHere(row.sealed)) return null;
  for (const box of previous ? [current, previous] : [current]) {
    try {
      return current.seal(box.open(row.sealed, row.endpoint_id));
    } catch {
      // try the next key
    }
  }
  return 'unreadable';
}

/**
 * Re-seals every stored signing secret under `config.secret` (see the file comment). Throws 422
 * `APP_SECRET_REQUIRED` when the application has no secret to seal with.
 */
export async function resealSecrets(
  deps: { sql: Sql; config: Pick<Config, 'secret'> },
  options: { fromSecret?: string; dryRun?: boolean } = {},
): Promise<ResealResult> {
  if (!deps.config.secret) {
    throw unprocessable('there is no application secret to seal with: set APP_SECRET first', {
      code: 'APP_SECRET_REQUIRED',
      data: { field: 'secret' },
    });
  }
  const current = createSecretBox(deps.config.secret);
  const previous = options.fromSecret ? createSecretBox(options.fromSecret) : undefined;
  const result: ResealResult = { resealed: 0, headers: 0, current: 0, unreadable: [], dryRun: options.dryRun === true };
  let afterId = '0';
  for (;;) {
    const done = await deps.sql.begin(async (tx) => {
      const rows = await lockBatch(tx as unknown as Sql, afterId);
      if (rows.length === 0) return true;
      afterId = rows[rows.length - 1].id;
      const changes: { id: string; sealed: string }[] = [];
      for (const row of rows) {
        const next = resealed(row, current, previous);
        if (next === null) result.current += 1;
        else if (next === 'unreadable') result.unreadable.push({ id: row.id, endpointId: row.endpoint_id });
        else changes.push({ id: row.id, sealed: next });
      }
      result.resealed += changes.length;
      if (changes.length > 0 && !options.dryRun) await updateSealed(tx as unknown as Sql, changes);
      return rows.length < BATCH;
    });
    if (done) break;
  }
  await resealHeaders(
    deps,
    result,
    previous ? createSecretBox(options.fromSecret, { purpose: 'endpoint-headers' }) : undefined,
  );
  return result;
}

/** The same for endpoint header values (a box of their own); endpoints whose values neither key opens are reported. */
async function resealHeaders(
  deps: { sql: Sql; config: Pick<Config, 'secret'> },
  result: ResealResult,
  previous: SecretBox | undefined,
): Promise<void> {
  const current = headerBox(deps.config);
  const rows = await deps.sql<{ id: string; headers: Record<string, string> }[]>`
    select id, headers from app_webhooks where headers <> '{}'::jsonb`;
  for (const row of rows) {
    const next: Record<string, string> = {};
    let changed = false;
    let unreadable = false;
    for (const [name, value] of Object.entries(row.headers)) {
      const legacy = !value.startsWith('enc:') && !value.startsWith('plain:');
      const sealed = legacy
        ? current.seal(value)
        : resealed({ id: row.id, endpoint_id: row.id, sealed: value }, current, previous);
      if (sealed === 'unreadable') unreadable = true;
      else if (sealed !== null) changed = true;
      next[name] = sealed === null || sealed === 'unreadable' ? value : sealed;
    }
    if (unreadable) result.unreadable.push({ id: `headers of ${row.id}`, endpointId: row.id });
    if (!changed) continue;
    result.headers += 1;
    if (!result.dryRun) await deps.sql`update app_webhooks set headers = ${deps.sql.json(next)} where id = ${row.id}`;
  }
}

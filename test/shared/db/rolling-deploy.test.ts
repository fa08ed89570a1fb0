/**
 * A migration keeps the previous release's web and worker processes working: they run on the new
 * schema from the release step until the platform has replaced them (docs/operations.md, "During a
 * deploy: old processes on the new schema"). The statements that can break them (a table, view,
 * function or type dropped, a table or column renamed or dropped, a column's type changed) may only
 * appear in a migration that says, in a comment starting `-- Rolling deploy:`, what the processes
 * of the release before do on the new schema and what a deployer must do about it; the same
 * migration goes into the operations guide's table.
 *
 * What this cannot see: a function replaced in place (`create or replace`, same arguments) with
 * a different meaning, or a column made NOT NULL that the release before does not write. Those are
 * the developer's rule in docs/architecture.md ("Migrations expand, then contract").
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MIGRATIONS_DIR } from '../../../shared/db/migrate.ts';
import { ROOT } from '../../helpers/processes.ts';

/** Statements that can break code written for the schema before them; group 1 names the object. */
const CONTRACTING = [
  /\bdrop\s+(?:table|view|materialized\s+view|function|procedure|type|schema|sequence)\s+(?:if\s+exists\s+)?(?!if\b)([a-z_][\w.]*)/g,
  /\bdrop\s+column\s+(?:if\s+exists\s+)?([a-z_]\w*)/g,
  /\brename\s+(?:column\s+)?(?:[a-z_]\w*\s+)?to\s+([a-z_]\w*)/g,
  /\balter\s+column\s+([a-z_]\w*)\s+(?:set\s+data\s+)?type\b/g,
];

/**
 * The migrations written before the rule, with what their contracting statements did to the
 * release before them, measured by running that release's emit, worker and prune on the schema
 * after them (docs/operations.md has the table). Names written by `execute format(...)` (%I) are
 * a partition's own tables, not the release's, and are not matched.
 */
const BEFORE_THE_RULE: Record<string, string[]> = {
  // the old tables renamed aside and partitioned ones made under the same names: nothing broke
  '023_partitioned_deliveries.sql': ['app_webhook_deliveries_legacy', 'app_webhook_attempts_legacy'],
  // only the cap function that 024 replaces called it: nothing broke
  '024_claim_cap_refined.sql': ['app_others_waiting'],
  // the release before wrote and read secrets there: its endpoint writes answered 500 and its
  // worker's claims failed (the jobs were run again by the recovery sweep, nothing lost)
  '025_endpoint_state_beside_deliveries.sql': ['app_webhook_secrets', 'failing_notified_at'],
  // the release before's hourly prune called it and failed until its worker stopped
  '026_partition_rewrite_steps.sql': ['app_delivery_partition_prune'],
};

/** The last migration written before the rule. */
const LAST_BEFORE_THE_RULE = 34;

/** The objects migration `text`'s contracting statements name, comments left out. */
function contracting(text: string): string[] {
  const code = text.replace(/--.*$/gm, '').toLowerCase();
  return CONTRACTING.flatMap((pattern) => [...code.matchAll(pattern)].map((match) => match[1]));
}

/** The objects migration `text` drops, renames or retypes without saying what the release before does meanwhile. */
function unexplained(text: string): string[] {
  return /^-- Rolling deploy: \S/m.test(text) ? [] : contracting(text);
}

const files = (await readdir(MIGRATIONS_DIR)).filter((name) => /^\d+_[\w-]+\.sql$/.test(name)).sort();
const texts = new Map(
  await Promise.all(files.map(async (name) => [name, await readFile(join(MIGRATIONS_DIR, name), 'utf8')] as const)),
);

describe('migrations keep the release before them working during a deploy', () => {
  it('finds the contracting statements of the migrations written before the rule, and only those', () => {
    const found = Object.fromEntries(
      files
        .filter((name) => parseInt(name, 10) <= LAST_BEFORE_THE_RULE)
        .map((name) => [name, contracting(texts.get(name) as string)])
        .filter(([, objects]) => objects.length > 0),
    );
    assert.deepEqual(found, BEFORE_THE_RULE);
  });

  it('refuses a dropped column without a "-- Rolling deploy:" comment, and takes it with one', () => {
    const drop = 'alter table app_webhooks drop column if exists headers;\n';
    assert.deepEqual(unexplained(drop), ['headers']);
    assert.deepEqual(unexplained(`-- Rolling deploy: the release before never reads it.\n${drop}`), []);
    assert.deepEqual(unexplained("execute format('drop table if exists %I', v_old);"), [], "a partition's own table");
  });

  it('every later migration says what its drops, renames and type changes do to the release before', () => {
    const later = files.filter((name) => parseInt(name, 10) > LAST_BEFORE_THE_RULE);
    const offending = later
      .map((name) => ({ name, objects: unexplained(texts.get(name) as string) }))
      .filter(({ objects }) => objects.length > 0)
      .map(({ name, objects }) => `${name}: ${objects.join(', ')}`);
    assert.deepEqual(
      offending,
      [],
      'say in a "-- Rolling deploy:" comment what the processes of the release before do meanwhile (docs/architecture.md)',
    );
  });

  it("names in the operations guide's table each migration that drops or renames what the release before used", async () => {
    const guide = await readFile(join(ROOT, 'docs/operations.md'), 'utf8');
    const start = guide.indexOf('\n### During a deploy: old processes on the new schema\n');
    assert.ok(start >= 0, 'the operations guide has the section');
    const table = guide.slice(start, guide.indexOf('\n## ', start));
    const named = files.filter(
      (name) => name in BEFORE_THE_RULE || /^-- Rolling deploy: \S/m.test(texts.get(name) as string),
    );
    const missing = named.filter((name) => !table.includes(`\n| ${name.slice(0, 3)} `));
    assert.deepEqual(missing, [], 'a row of the table for each');
  });
});

/**
 * docs/operations.md, "Upgrades and migrations", tells a deployer how a migration runs: in one
 * transaction, or in steps committed one by one (STEP_MARKER) for the few that must not hold their
 * locks throughout. A migration run in steps keeps its earlier steps when a later one fails, so the
 * deployer must find every such migration named there.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { MIGRATIONS_DIR, STEP_MARKER } from '../../shared/db/migrate.ts';
import { ROOT } from '../helpers/processes.ts';

/** The text of a level-two section of a document, from its heading to the next one. */
function section(document: string, heading: string): string {
  const start = document.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `no section "${heading}"`);
  const end = document.indexOf('\n## ', start + 1);
  return document.slice(start, end < 0 ? undefined : end);
}

describe('docs/operations.md: upgrades and migrations', () => {
  it('names every migration the runner commits in steps', () => {
    const upgrades = section(readFileSync(join(ROOT, 'docs/operations.md'), 'utf8'), 'Upgrades and migrations');
    const stepped = readdirSync(MIGRATIONS_DIR)
      .filter((name) => name.endsWith('.sql'))
      .filter((name) => STEP_MARKER.test(readFileSync(join(MIGRATIONS_DIR, name), 'utf8')));
    assert.ok(stepped.length > 0, 'some migration is run in steps');
    for (const name of stepped) {
      const number = name.slice(0, 3);
      assert.match(
        upgrades,
        new RegExp(`\\b${number}\\b[^.]*(?:steps|transactions?|three)`),
        `${name} is run in steps`,
      );
    }
  });
});

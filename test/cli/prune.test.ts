/**
 * What `app prune` prints (cli/commands/prune.ts): the cut-offs it applied, or that a null
 * retention keeps those records forever; with `--json`, its timings in whole milliseconds; beside
 * another prune, that it removed nothing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PRUNE_LOCK } from '../../shared/webhooks/prune-lock.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { runAppInProcess } from '../helpers/cli.ts';

const db = await createTestDatabase();
const app = (args: string[], env: Record<string, string> = {}) =>
  runAppInProcess(args, {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
    ...env,
  });
const ISO = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z';

describe('app prune', () => {
  it('names the cut-offs it applied, events going once no delivery of theirs is left', async () => {
    const result = await app(['prune']);
    assert.equal(result.code, 0, result.stderr);
    const [, cutoffs] = result.stdout.split('\n');
    assert.match(
      cutoffs,
      new RegExp(
        `^  done deliveries created before ${ISO}; dead created before ${ISO}; events created before ${ISO} with no delivery left$`,
      ),
    );
  });

  it('with retention off says plainly that those records are kept forever', async () => {
    const result = await app(['prune', '--dry-run'], { APP_WEBHOOKS__RETENTION: '', APP_WEBHOOKS__DEAD_RETENTION: '' });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(
      result.stdout.split('\n')[1],
      '  done deliveries kept forever; dead kept forever; events kept forever',
    );
    const deadOnly = await app(['prune', '--dry-run'], { APP_WEBHOOKS__RETENTION: '' });
    assert.match(
      deadOnly.stdout.split('\n')[1],
      new RegExp(`^  done deliveries kept forever; dead created before ${ISO}; events kept forever$`),
    );
  });

  it('--json gives its timings in whole milliseconds', async () => {
    const result = await app(['prune', '--json']);
    assert.equal(result.code, 0, result.stderr);
    const { timings } = JSON.parse(result.stdout);
    assert.deepEqual(Object.keys(timings).sort(), ['events', 'longestStep', 'partitions', 'rows']);
    for (const [name, ms] of Object.entries(timings)) assert.ok(Number.isInteger(ms), `${name}: ${ms}`);
  });

  it('beside another prune (its lock held) says it removed nothing, exit 0; --json says skipped', async () => {
    const holder = await db.sql.reserve();
    try {
      await holder`select pg_advisory_lock(${PRUNE_LOCK})`;
      const result = await app(['prune']);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(
        result.stdout,
        'another prune is running: nothing removed by this one (the next prunes, hourly or `app prune` again, take up what it leaves)\n',
      );
      const json = JSON.parse((await app(['prune', '--json'])).stdout);
      assert.deepEqual([json.skipped, json.done, json.dead, json.events], [true, 0, 0, 0]);
    } finally {
      await holder`select pg_advisory_unlock(${PRUNE_LOCK})`;
      holder.release();
    }
    assert.equal(
      JSON.parse((await app(['prune', '--json'])).stdout).skipped,
      false,
      'once it is released, a prune runs',
    );
  });
});

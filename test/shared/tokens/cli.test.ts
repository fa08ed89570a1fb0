import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { verifyToken } from '../../../shared/tokens/tokens.ts';
import { runAppInProcess, type CliRun as Run } from '../../helpers/cli.ts';
import { createTestDatabase } from '../../helpers/database.ts';

const db = await createTestDatabase();
/** Runs the CLI (in this process) against this file's database. */
function app(args: string[]): Promise<Run> {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    NODE_ENV: 'test',
    DATABASE_URL: db.url,
  };
  return runAppInProcess(args, env);
}

describe('tokens:create, tokens:list, tokens:revoke', () => {
  it('tokens:create prints the token once; tokens:list never shows it; tokens:revoke stops it at once', async () => {
    const created = await app(['tokens:create', '--name', 'billing backend', '--role', 'member', '--owner', 'acme']);
    assert.equal(created.code, 0, created.stderr);
    const token = /token: +(app_tok_\S+)/.exec(created.stdout)?.[1] as string;
    const id = /id: +(tok_\S+)/.exec(created.stdout)?.[1] as string;
    assert.ok(token && id, created.stdout);
    assert.match(created.stdout, /cannot be shown again/);
    assert.equal((await verifyToken({ sql: db.sql, log: db.log }, token))?.owner, 'acme');

    const listed = await app(['tokens:list']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`${id}\\s+billing backend\\s+member\\s+acme`));
    assert.equal(listed.stdout.includes(token), false);
    const json = await app(['tokens:list', '--json']);
    assert.equal(json.stdout.includes(token), false);
    assert.deepEqual(
      JSON.parse(json.stdout).map((t: { externalId: string }) => t.externalId),
      [id],
    );

    const revoked = await app(['tokens:revoke', id, '--json']);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.ok(JSON.parse(revoked.stdout).revokedAt);
    assert.equal(await verifyToken({ sql: db.sql, log: db.log }, token), null);
    assert.match((await app(['tokens:list'])).stdout, /no API tokens/);
    assert.match((await app(['tokens:list', '--all'])).stdout, new RegExp(id));
  });

  it('--json prints the created token as one document; --expires sets its end', async () => {
    const run = await app(['tokens:create', '--name', 'ops', '--role', 'admin', '--expires', '30d', '--json']);
    assert.equal(run.code, 0, run.stderr);
    const created = JSON.parse(run.stdout);
    assert.match(created.token, /^app_tok_/);
    assert.equal(created.owner, null);
    const days = (Date.parse(created.expiresAt) - Date.parse(created.createdAt)) / 86_400_000;
    assert.ok(Math.abs(days - 30) < 0.01, String(days));
  });

  it('refusals end with one app: line on stderr and their exit code: a member without owner, an admin with one (1), an unknown role (2, usage), an unknown id (3)', async () => {
    for (const [args, reason, exit] of [
      [['tokens:create', '--name', 'x', '--role', 'member'], /bound to one tenant/, 1],
      [['tokens:create', '--name', 'x', '--role', 'admin', '--owner', 'acme'], /leave the owner out/, 1],
      [
        ['tokens:create', '--name', 'x', '--role', 'root'],
        /^app: --role root: must be one of admin, member, viewer$/m,
        2,
      ],
      [['tokens:create', '--name', 'x', '--role', 'admin', '--expires', 'soon'], /not a duration/, 1],
      // said of the option, as a duration: not the API's field in milliseconds
      [
        ['tokens:create', '--name', 'x', '--role', 'admin', '--expires', '0d'],
        /^app: --expires "0d" must be longer than zero$/m,
        1,
      ],
      [
        ['tokens:create', '--name', 'x', '--role', 'admin', '--expires', '4000d'],
        /^app: --expires "4000d" is longer than the longest lifetime accepted, 3650d \(ten years\)$/m,
        1,
      ],
      [['tokens:revoke', 'tok_nope'], /does not exist/, 3],
    ] as Array<[string[], RegExp, number]>) {
      const run = await app(args);
      assert.equal(run.code, exit, `${args.join(' ')}: ${run.stdout}`);
      assert.equal(run.stdout, '');
      assert.match(run.stderr, reason);
    }
  });
});

/**
 * How a command's context is closed (cli/command.ts, cli/context.ts): a command that failed
 * because the database cannot be reached ends its pool at once, so it reports as soon as its first
 * query failed instead of after the grace the pool's statements get.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { defineCommand } from '../../cli/command.ts';
import type { CliIo } from '../../cli/io.ts';
import { freePort } from '../helpers/ports.ts';

describe('closing a command', () => {
  it('a command whose database refuses connections ends its pool at once: the queries it left queued make no attempt of their own', async () => {
    // nothing listens there: every connection is refused (ECONNREFUSED) at once
    const url = `postgres://app@127.0.0.1:${await freePort()}/app`;
    const io: CliIo = {
      stdout: new PassThrough(),
      stderr: new PassThrough(),
      stdin: new PassThrough(),
      env: { NODE_ENV: 'development', DATABASE_URL: url },
    };
    const outcomes: Promise<string>[] = [];
    // five queries at once on the CLI's pool of two connections, as jobs:list sends its page and counts
    const command = defineCommand({
      run: async (context) => {
        const sql = context.sql();
        const queries = Array.from({ length: 5 }, (_, i) => sql`select ${i}::int`);
        for (const query of queries)
          outcomes.push(
            query.then(
              () => 'answered',
              (error: { code?: string }) => String(error.code),
            ),
          );
        await Promise.all(queries);
      },
    });
    await assert.rejects(command.handler({ json: false }, io), { code: 'ECONNREFUSED' });
    const codes = await Promise.all(outcomes);
    assert.equal(codes[0], 'ECONNREFUSED', 'the first query was refused');
    // ended with the command: the three waiting behind the two connections fail with it, rather
    // than each being refused in turn on an attempt of its own while the driver's end() waits
    assert.deepEqual(codes.slice(2), ['CONNECTION_DESTROYED', 'CONNECTION_DESTROYED', 'CONNECTION_DESTROYED']);
  });
});

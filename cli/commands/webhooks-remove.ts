import { createInterface } from 'node:readline/promises';
import { defineCommand } from '../command.ts';
import { UsageError } from '../failure.ts';
import type { CliIo } from '../io.ts';
import { OPERATOR } from '../../shared/access/actor.ts';

/**
 * Asks on the terminal; answers true for y or yes. The input ending at the question (Ctrl-D) or
 * Ctrl-C there (readline ends the question in raw mode, no signal sent) is no; a signal stopping
 * the run ends the question too, and is reported as such.
 */
async function confirmed(io: CliIo, question: string): Promise<boolean> {
  const prompt = createInterface({ input: io.stdin, output: io.stderr });
  // a question still pending when its input ends is never settled by readline
  const ended = new Promise<null>((resolve) => prompt.once('close', () => resolve(null)));
  try {
    const asked = prompt.question(question, io.interrupted ? { signal: io.interrupted } : {});
    const answer = await Promise.race([asked, ended]).catch((error: Error) => {
      if (io.interrupted?.aborted || error.name !== 'AbortError') throw error;
      return null;
    });
    if (answer === null) {
      io.stderr.write('\n');
      return false;
    }
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    prompt.close();
  }
}

/**
 * `webhooks:remove <id> [--yes]`: deletes the endpoint with its secrets and delivery records,
 * after a confirmation on the terminal. Without a terminal (a script) `--yes` is required; either
 * missing is a usage error (exit 2) and removes nothing.
 */
export const webhooksRemoveCommand = defineCommand({
  builder: (yargs) =>
    yargs
      .positional('id', { type: 'string', demandOption: true, describe: 'Endpoint id (ep_…)' })
      .option('yes', { alias: 'y', type: 'boolean', default: false, describe: 'Do not ask for confirmation' }),
  run: async (context, args) => {
    const id = args.id as string;
    if (!args.yes) {
      if (!context.io.stdin.isTTY)
        throw new UsageError(
          `webhooks:remove ${id} deletes the endpoint and its delivery records: pass --yes to confirm (no terminal to ask on)`,
        );
      // a confirmation not given is a usage error (exit 2), as is --yes missing without a terminal
      if (
        !(await confirmed(
          context.io,
          `remove webhook endpoint ${id} with its secrets and every delivery record? [y/N] `,
        ))
      )
        throw new UsageError('nothing removed: not confirmed');
    }
    const { removeEndpoint } = await import('../../shared/webhooks/endpoints/index.ts');
    const { webhookDeps } = await import('../support/webhooks.ts');
    const result = await removeEndpoint(webhookDeps(context), OPERATOR, id);
    context.print({ externalId: result.id, removed: result.removed }, () => `removed ${result.id}`);
  },
});

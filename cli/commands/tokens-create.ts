import { parseDuration } from '../../shared/config/units.ts';
import { unprocessable } from '../../shared/errors/app-error.ts';
import type { Role } from '../../shared/tokens/roles.ts';
import { defineCommand } from '../command.ts';
import { ROLE_OPTION } from '../support/role-option.ts';
import { OPERATOR } from '../../shared/access/actor.ts';

/**
 * `--expires 90d` in milliseconds (any duration of shared/config/units.ts). What is wrong is said
 * of the option and as a duration, not as the API's `expiresInMs` in milliseconds.
 */
function parseExpires(text: string | undefined, longest: number): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseDuration(String(text));
  const refuse = (problem: string, reason: string) =>
    unprocessable(`--expires ${JSON.stringify(text)} ${problem}`, {
      code: 'APP_TOKEN_FIELD_INVALID',
      data: { field: 'expiresInMs', reason, value: text },
    });
  if (ms === null) throw refuse('is not a duration such as 30d or 8760h', 'not a duration');
  if (ms <= 0) throw refuse('must be longer than zero', 'not positive');
  if (ms > longest)
    throw refuse(`is longer than the longest lifetime accepted, ${longest / 86_400_000}d (ten years)`, 'too long');
  return ms;
}

/** `tokens:create --name <label> --role admin|member|viewer [--owner <tenant>] [--expires <duration>]`: prints the token once. */
export const tokensCreateCommand = defineCommand({
  builder: (yargs) =>
    yargs
      .option('name', { type: 'string', demandOption: true, describe: 'Who or what uses the token' })
      .option('role', ROLE_OPTION)
      .option('owner', {
        type: 'string',
        describe: 'The tenant a member or viewer token is bound to (required for them, refused for admin)',
      })
      .option('expires', { type: 'string', describe: 'Lifetime, e.g. 90d (default: until revoked)' }),
  run: async (context, args) => {
    const { mintToken } = await import('../../shared/tokens/api-tokens.ts');
    const { MAX_TOKEN_LIFETIME_MS, publicToken } = await import('../../shared/tokens/tokens.ts');
    const { tokenDeps, tokenText } = await import('../support/tokens.ts');
    const created = await mintToken(tokenDeps(context), OPERATOR, {
      name: args.name as string,
      role: args.role as Role,
      owner: args.owner,
      expiresInMs: parseExpires(args.expires, MAX_TOKEN_LIFETIME_MS),
    });
    context.print(
      publicToken(created),
      () =>
        `${tokenText(created)}\ntoken:     ${created.token}\n\n` +
        'Give the token to its client now: it is not stored and cannot be shown again.\n' +
        'Clients send it as the header  Authorization: Bearer <token>',
    );
  },
});

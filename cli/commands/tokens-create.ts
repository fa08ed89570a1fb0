import { parseDuration } from '../../shared/config/units.ts';
import { unprocessable } from '../../shared/errors/app-error.ts';
import type { Role } from '../../shared/tokens/roles.ts';
import { defineCommand } from '../command.ts';
import { ROLE_OPTION } from '../support/role-option.ts';
import { OPERATOR } from '../../shared/access/actor.ts';

/** `--expires 90d` in milliseconds (any duration of shared/config/units.ts). */
function parseExpires(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseDuration(String(text));
  if (ms === null || ms <= 0) {
    throw unprocessable(`--expires ${JSON.stringify(text)} is not a duration such as 30d or 8760h`, {
      code: 'APP_TOKEN_FIELD_INVALID',
      data: { field: 'expiresInMs', reason: 'not a duration', value: text },
    });
  }
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
    const { publicToken } = await import('../../shared/tokens/tokens.ts');
    const { tokenDeps, tokenText } = await import('../support/tokens.ts');
    const created = await mintToken(tokenDeps(context), OPERATOR, {
      name: args.name as string,
      role: args.role as Role,
      owner: args.owner,
      expiresInMs: parseExpires(args.expires),
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

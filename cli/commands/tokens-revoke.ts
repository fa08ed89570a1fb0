import { defineCommand } from '../command.ts';
import { OPERATOR } from '../../shared/access/actor.ts';

/** `tokens:revoke <id>`: requests with the token are refused (401) from now on. */
export const tokensRevokeCommand = defineCommand({
  builder: (yargs) => yargs.positional('id', { type: 'string', demandOption: true, describe: 'Token id (tok_…)' }),
  run: async (context, args) => {
    const { revokeTokenFor } = await import('../../shared/tokens/api-tokens.ts');
    const { publicToken } = await import('../../shared/tokens/tokens.ts');
    const { tokenDeps } = await import('../support/tokens.ts');
    const token = await revokeTokenFor(tokenDeps(context), OPERATOR, args.id as string);
    context.print(
      publicToken(token),
      () => `revoked ${token.id} (${token.name}) at ${new Date(token.revokedAt as Date).toISOString()}`,
    );
  },
});

import { revokeTokenFor } from '../../shared/tokens/api-tokens.ts';
import { OPERATOR } from '../../shared/access/actor.ts';
import { defineCommand } from '../command.ts';
import { tokenDeps } from './tokens-cli.ts';

/** `tokens:revoke <id>`: requests with the token are refused (401) from now on. */
export const tokensRevokeCommand = defineCommand({
  builder: (yargs) => yargs.positional('id', { type: 'string', demandOption: true, describe: 'Token id (tok_…)' }),
  run: async (context, args) => {
    const token = await revokeTokenFor(tokenDeps(context), OPERATOR, args.id as string);
    context.print(token, () => `revoked ${token.id} (${token.name}) at ${new Date(token.revokedAt as Date).toISOString()}`);
  },
});

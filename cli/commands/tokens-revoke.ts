import { defineCommand } from '../command.ts';

/** `tokens:revoke <id>`: requests with the token are refused (401) from now on. */
export const tokensRevokeCommand = defineCommand({
  builder: (yargs) => yargs.positional('id', { type: 'string', demandOption: true, describe: 'Token id (tok_…)' }),
  run: async (context, args) => {
    const { revokeToken } = await import('../../shared/tokens/tokens.ts');
    const { tokenDeps } = await import('./tokens-cli.ts');
    const token = await revokeToken(tokenDeps(context), args.id as string);
    context.print(token, () => `revoked ${token.id} (${token.name}) at ${new Date(token.revokedAt as Date).toISOString()}`);
  },
});

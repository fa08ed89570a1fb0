import { defineCommand } from '../command.ts';

/** `tokens:list [--all]`: the tokens in use (with --all the revoked ones too); never their text. */
export const tokensListCommand = defineCommand({
  builder: (yargs) => yargs.option('all', { type: 'boolean', default: false, describe: 'Include revoked tokens' }),
  run: async (context, args) => {
    const { listTokens, publicToken } = await import('../../shared/tokens/tokens.ts');
    const { tokenDeps, tokenTable } = await import('../support/tokens.ts');
    const tokens = await listTokens(tokenDeps(context), { includeRevoked: Boolean(args.all) });
    context.print(tokens.map(publicToken), () => (tokens.length === 0 ? 'no API tokens' : tokenTable(tokens)));
  },
});

import { listTokens } from '../../shared/tokens/tokens.ts';
import { defineCommand } from '../command.ts';
import { tokenDeps, tokenTable } from './tokens-cli.ts';

/** `tokens:list [--all]`: the tokens in use (with --all the revoked ones too); never their text. */
export const tokensListCommand = defineCommand({
  builder: (yargs) => yargs.option('all', { type: 'boolean', default: false, describe: 'Include revoked tokens' }),
  run: async (context, args) => {
    const tokens = await listTokens(tokenDeps(context), { includeRevoked: Boolean(args.all) });
    context.print(tokens, () => (tokens.length === 0 ? 'no API tokens' : tokenTable(tokens)));
  },
});

import { endUserSessions } from '../../shared/accounts/sessions.ts';
import { findUser } from '../../shared/accounts/users.ts';
import { defineCommand } from '../command.ts';
import { accountDeps, publicUser } from './users-cli.ts';

/** `sessions:revoke <id|email>`: ends every sign-in session of the user, in every web process at once. */
export const sessionsRevokeCommand = defineCommand({
  builder: (yargs) => yargs.positional('user', { type: 'string', demandOption: true, describe: 'User id (usr_…) or email' }),
  run: async (context, args) => {
    const deps = accountDeps(context);
    const user = await findUser(deps, args.user);
    const ended = await endUserSessions(deps, user.id);
    context.print({ user: publicUser(user), ended }, () => `${ended} session${ended === 1 ? '' : 's'} of ${user.email} ended`);
  },
});

import { defineCommand } from '../command.ts';

/** `sessions:revoke <id|email>`: ends every sign-in session of the user, in every web process at once. */
export const sessionsRevokeCommand = defineCommand({
  builder: (yargs) =>
    yargs.positional('user', { type: 'string', demandOption: true, describe: 'User id (usr_…) or email' }),
  run: async (context, args) => {
    const { endUserSessions } = await import('../../shared/accounts/sessions.ts');
    const { findUser } = await import('../../shared/accounts/users.ts');
    const { accountDeps, publicUser } = await import('../support/users.ts');
    const deps = accountDeps(context);
    const user = await findUser(deps, args.user);
    const ended = await endUserSessions(deps, user.id);
    context.print(
      { user: publicUser(user), ended },
      () => `${ended} session${ended === 1 ? '' : 's'} of ${user.email} ended`,
    );
  },
});

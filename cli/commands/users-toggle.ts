import { defineCommand } from '../command.ts';
import { OPERATOR } from '../../shared/access/actor.ts';

/** What the actions need, loaded when one runs (`--help` reads the options alone). */
const users = () => import('../../shared/accounts/users.ts');
const helpers = () => import('../support/users.ts');

const userArgument = { type: 'string', demandOption: true, describe: 'User id (usr_…) or email' } as const;

/** `users:disable <id|email>`: it can no longer sign in; its sessions end and the tokens it minted are revoked. */
export const usersDisableCommand = defineCommand({
  builder: (yargs) => yargs.positional('user', userArgument),
  run: async (context, args) => {
    const { setUserDisabled } = await users();
    const { accountDeps, publicUser, userText } = await helpers();
    const user = await setUserDisabled(accountDeps(context), OPERATOR, args.user, true);
    context.print(publicUser(user), () => userText(user));
  },
});

/** `users:enable <id|email>`: it may sign in again (revoked tokens stay revoked). */
export const usersEnableCommand = defineCommand({
  builder: (yargs) => yargs.positional('user', userArgument),
  run: async (context, args) => {
    const { setUserDisabled } = await users();
    const { accountDeps, publicUser, userText } = await helpers();
    const user = await setUserDisabled(accountDeps(context), OPERATOR, args.user, false);
    context.print(publicUser(user), () => userText(user));
  },
});

/** `users:reset-link <id|email>`: prints a one-time set-password link (`auth.inviteTtl`). */
export const usersResetLinkCommand = defineCommand({
  builder: (yargs) => yargs.positional('user', userArgument),
  run: async (context, args) => {
    const { findUser } = await users();
    const { accountDeps, publicUser, setPasswordLink } = await helpers();
    const user = await findUser(accountDeps(context), args.user);
    const link = await setPasswordLink(context, user);
    context.print(
      { user: publicUser(user), ...link },
      () =>
        `Set-password link for ${user.email} (works once, until ${link.expiresAt.toISOString()}):\n${link.setPasswordUrl}`,
    );
  },
});

import { defineCommand } from '../command.ts';
import { ROLE_OPTION } from '../support/role-option.ts';
import { OPERATOR } from '../../shared/access/actor.ts';

/**
 * `users:create --email <e> --role <r> [--owner <o>] [--name <n>] [--password-stdin]`: with
 * `--password-stdin` the password is read from standard input (one line, support/stdin-line.ts; never from an argument,
 * which other users of the machine can read); without it, a one-time set-password link is printed.
 */
export const usersCreateCommand = defineCommand({
  builder: (yargs) =>
    yargs
      .option('email', { type: 'string', demandOption: true, describe: 'Sign-in email (unique, any case)' })
      .option('role', ROLE_OPTION)
      .option('owner', {
        type: 'string',
        describe: 'The tenant a member or viewer belongs to (required for them, refused for admin)',
      })
      .option('name', { type: 'string', describe: 'Display name' })
      .option('password-stdin', { type: 'boolean', default: false, describe: 'Read the password from standard input' }),
  run: async (context, args) => {
    const { createUser } = await import('../../shared/accounts/users.ts');
    const { accountDeps, publicUser, setPasswordLink, userText } = await import('../support/users.ts');
    const { stdinLine } = await import('../support/stdin-line.ts');
    const password = args['password-stdin'] ? await stdinLine(context.io.stdin, '--password-stdin') : undefined;
    const user = await createUser(accountDeps(context), OPERATOR, {
      email: args.email,
      role: args.role,
      owner: args.owner,
      name: args.name,
      password,
    });
    const link = password === undefined ? await setPasswordLink(context, user) : undefined;
    context.print(
      { ...publicUser(user), ...link },
      () =>
        `${userText(user)}${link ? `\n\nSet-password link (works once, until ${link.expiresAt.toISOString()}):\n${link.setPasswordUrl}` : ''}`,
    );
  },
});

import { defineCommand } from '../command.ts';

/** `users:list [--all]`: enabled users (with --all the disabled ones too), oldest first. */
export const usersListCommand = defineCommand({
  builder: (yargs) => yargs.option('all', { type: 'boolean', default: false, describe: 'Include disabled users' }),
  run: async (context, args) => {
    const { listUsers } = await import('../../shared/accounts/users.ts');
    const { accountDeps, publicUser, userTable } = await import('../support/users.ts');
    const users = await listUsers(accountDeps(context), { includeDisabled: Boolean(args.all) });
    context.print(users.map(publicUser), () => (users.length === 0 ? 'no users' : userTable(users)));
  },
});

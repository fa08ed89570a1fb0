import { OPERATOR } from '../../shared/access/actor.ts';
import { ROLES } from '../../shared/tokens/roles.ts';
import { defineCommand } from '../command.ts';
import { limitOf, limitOption, ownerOf, ownerOptions, pageOf, pageOption } from '../support/filters.ts';

/**
 * `users:list [--all] [--role] [--owner | --without-owner] [--email] [--limit] [--page]`: one
 * page of the users (enabled ones, with --all the disabled ones too), oldest first, and whether
 * more pages follow: a deployment whose tenants each have accounts holds tens of thousands.
 */
export const usersListCommand = defineCommand({
  builder: (yargs) =>
    yargs
      .options({
        all: { type: 'boolean', default: false, describe: 'Include disabled users' },
        role: { type: 'string', choices: ROLES, describe: 'Only users of this role' },
        ...ownerOptions,
        email: { type: 'string', describe: 'Only users whose email contains this text (any case)' },
        limit: { ...limitOption, describe: limitOption.describe.replace('newest', 'oldest') },
        page: pageOption,
      })
      .conflicts('owner', 'without-owner'),
  run: async (context, args) => {
    const { listUsers } = await import('../../shared/accounts/users.ts');
    const { publicUser, userTable } = await import('../support/users.ts');
    const perPage = limitOf(args.limit);
    const page = pageOf(args.page);
    const owner = ownerOf(args);
    const { records, total } = await listUsers({ sql: context.sql(), config: context.config }, OPERATOR, {
      page,
      perPage,
      ...(args.all ? {} : { enabled: true }),
      ...(args.role === undefined ? {} : { role: args.role }),
      ...(owner === undefined ? {} : { owner }),
      ...(args.email === undefined ? {} : { email: args.email }),
    });
    const pages = Math.ceil(total / perPage);
    const more = page < pages ? `page ${page} of ${pages} (${total} users): the next is --page ${page + 1}` : undefined;
    // with --json, stdout holds the one JSON document: the note that more pages follow goes to stderr
    if (more !== undefined && args.json) context.io.stderr.write(`${more}\n`);
    context.print(records.map(publicUser), () =>
      records.length === 0
        ? total === 0
          ? 'no users'
          : `no users on page ${page}: the list ends at page ${pages} (${total} users)`
        : more === undefined
          ? userTable(records)
          : `${userTable(records)}\n${more}`,
    );
  },
});

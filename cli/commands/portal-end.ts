import { defineCommand } from '../command.ts';
import { OPERATOR } from '../../shared/access/actor.ts';

/**
 * `portal:end --owner <o> [--links]`: ends every portal session of tenant `o` at once, in every
 * web process (a link forwarded to the wrong person, a tenant whose relationship ended); with
 * `--links` its portal links not yet opened stop working too. Users' sessions are not touched.
 */
export const portalEndCommand = defineCommand({
  builder: (yargs) =>
    yargs
      .option('owner', { type: 'string', demandOption: true, describe: 'The tenant whose portal sessions end' })
      .option('links', {
        type: 'boolean',
        default: false,
        describe: 'Also spend its portal links not yet opened, so that none signs in afterwards',
      }),
  run: async (context, args) => {
    const { endPortalSessions } = await import('../../shared/accounts/portal-links.ts');
    const { accountDeps } = await import('../support/users.ts');
    const { plural } = await import('../support/text-forms.ts');
    const ended = await endPortalSessions(accountDeps(context), OPERATOR, { owner: args.owner, links: args.links });
    context.print(ended, () =>
      [
        `${plural(ended.sessions, 'portal session', 'portal sessions')} of ${ended.owner} ended`,
        ...(args.links ? [`${plural(ended.links, 'unopened portal link', 'unopened portal links')} spent`] : []),
      ].join('\n'),
    );
  },
});

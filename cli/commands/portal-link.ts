import { PORTAL_ROLES } from '../../shared/tokens/roles.ts';
import { defineCommand } from '../command.ts';
import { OPERATOR } from '../../shared/access/actor.ts';

/**
 * `portal:link --owner <o> [--role member|viewer]`: prints a single-use link, valid
 * `auth.portalLinkTtl`, that signs a member (or viewer) of tenant `o` into the console, scoped to
 * it; on `publicUrl` or the local web process. Hand it to the tenant (e.g. redirect them to it
 * from your product); only its digest is stored.
 */
export const portalLinkCommand = defineCommand({
  builder: (yargs) =>
    yargs
      .option('owner', { type: 'string', demandOption: true, describe: 'The tenant whose console the link opens' })
      .option('role', {
        type: 'string',
        choices: PORTAL_ROLES,
        default: 'member',
        describe: 'member: read and change its endpoints; viewer: read only',
      }),
  run: async (context, args) => {
    const { createPortalLink, portalLinkUrl } = await import('../../shared/accounts/portal-links.ts');
    const { linkBase } = await import('../../shared/accounts/password-links.ts');
    const { accountDeps } = await import('../support/users.ts');
    const deps = accountDeps(context);
    const link = await createPortalLink(deps, OPERATOR, { owner: args.owner, role: args.role });
    const url = portalLinkUrl(linkBase(deps, context.webOrigin), link.token);
    context.print(
      { owner: link.owner, role: link.role, url, expiresAt: link.expiresAt },
      () => `Portal link for ${link.owner} (${link.role}; works once, until ${link.expiresAt.toISOString()}):\n${url}`,
    );
  },
});

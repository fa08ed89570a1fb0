import type { EndpointDetails } from '../../shared/webhooks/endpoints/show.ts';
import { OPERATOR } from '../../shared/access/actor.ts';
import { defineCommand } from '../command.ts';
import { isoOrDash } from '../support/text-forms.ts';

/**
 * `webhooks:show <id> [--reveal]`: one endpoint; with --reveal the secrets that still sign (an
 * ed25519 endpoint: the public keys of its signing keys, never the private keys).
 */
export const webhooksShowCommand = defineCommand({
  builder: (yargs) =>
    yargs.positional('id', { type: 'string', demandOption: true, describe: 'Endpoint id (ep_…)' }).option('reveal', {
      type: 'boolean',
      default: false,
      describe: 'Print the signing secrets still in use (ed25519: their public keys) and the header values',
    }),
  run: async (context, args) => {
    const { revealEndpoint, showEndpoint } = await import('../../shared/webhooks/endpoints/show.ts');
    const { publicSecret } = await import('../../shared/webhooks/public-shapes.ts');
    const { endpointText, receiverKeyWords, shown, webhookDeps } = await import('../support/webhooks.ts');
    const deps = webhookDeps(context);
    const id = args.id as string;
    const details: EndpointDetails = args.reveal
      ? await revealEndpoint(deps, OPERATOR, id)
      : await showEndpoint(deps, OPERATOR, id);
    const printed = shown(details);
    const secrets = details.secrets.map((entry) =>
      'secret' in entry ? { secret: entry.secret, ...publicSecret(entry) } : publicSecret(entry),
    );
    context.print({ ...printed, secrets }, () => {
      const lines = details.secrets.map((entry) => {
        const until = entry.expiresAt === null ? 'no end' : `until ${isoOrDash(entry.expiresAt)}`;
        const value = 'secret' in entry ? `${entry.secret}  ` : '';
        return `  ${value}created ${isoOrDash(entry.createdAt)}, signs ${until}`;
      });
      const hint = args.reveal ? '' : '\n(add --reveal to print them)';
      return `${endpointText(printed)}\n${receiverKeyWords(details.signing).inUse} (${details.secrets.length}):\n${lines.join('\n')}${hint}`;
    });
  },
});

/**
 * The dead letter queue: dead deliveries filtered by endpoint and time range (and owner, for
 * admins), one retry each, and the replay of the whole selection after a confirmation that says
 * how many: the endpoint's `recoverDeliveries` (as `webhooks:recover`, `POST
 * /api/v1/webhooks/:id/recover`) for the chosen endpoint, or for each enabled endpoint in reach.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { recoverDeliveries } from '../../../shared/webhooks/deliveries/index.ts';
import { listEndpoints } from '../../../shared/webhooks/endpoints/index.ts';
import type { TenantScope } from '../../../shared/webhooks/tenant-scope.ts';
import type { PageError } from '../../pages/page-object.ts';
import { doneNotice, field, formOf, isAdmin, orShowAgain, pageParam, principalOf, redirectDone, scopeFor, signedIn, type ConsoleDeps } from '../context.ts';
import { timeField } from '../forms.ts';
import { consoleCreateLink } from '../links.ts';
import { CONSOLE_PATHS } from '../paths.ts';
import { DEAD_LETTERS } from '../queries.ts';
import { tenantChoices } from './overview.ts';

/** The oldest time a replay reaches when the selection names no start. */
const BEGINNING = '1970-01-01T00:00:00.000Z';
/** Rounds of `recoverDeliveries` (1,000 each) one replay runs per endpoint before it says more remain. */
const MAX_ROUNDS = 10;

type Selection = { endpoint: string; owner: string; since: string; until: string };

const selectionOf = (ctx: Context, source: Record<string, unknown>): Selection => ({
  endpoint: field(source, 'endpoint') ?? '',
  owner: isAdmin(ctx) ? field(source, 'owner') ?? '' : '',
  since: field(source, 'since') ?? '',
  until: field(source, 'until') ?? '',
});

const variablesOf = (selection: Selection, page: number) => ({
  endpoint: selection.endpoint || null,
  ...(selection.owner === '-' ? { withoutOwner: true } : { owner: selection.owner || null }),
  since: timeField(selection.since || undefined) ?? null,
  until: timeField(selection.until || undefined) ?? null,
  page,
});

/** Replays the selection; how many deliveries were queued again and whether more remain. */
async function replay(deps: ConsoleDeps, scope: TenantScope, selection: Selection): Promise<{ recovered: number; more: boolean }> {
  const owner = selection.owner === '-' ? null : selection.owner || undefined;
  const endpoints = selection.endpoint
    ? [selection.endpoint]
    : (await listEndpoints(deps.webhooks, scope, { owner, enabled: true })).records.map((endpoint) => endpoint.id);
  const range = { since: timeField(selection.since || undefined) ?? BEGINNING, until: timeField(selection.until || undefined) };
  let recovered = 0;
  let more = false;
  for (const endpoint of endpoints) {
    for (let round = 0; round < MAX_ROUNDS; round += 1) {
      const result = await recoverDeliveries(deps.webhooks, scope, endpoint, range);
      recovered += result.recovered;
      more = result.more && round === MAX_ROUNDS - 1 ? true : more;
      if (!result.more || result.recovered === 0) break;
    }
  }
  return { recovered, more };
}

export function deadLetterRoutes(router: Router, deps: ConsoleDeps): void {
  const show = async (ctx: Context, page: 'console/dead-letters' | 'console/replay', selection: Selection, extra: { errors?: PageError[]; status?: number } = {}) =>
    ctx.render(page, { selection, tenants: await tenantChoices(ctx, deps), admin: isAdmin(ctx), replayed: ctx.query.replayed ?? null }, {
      graphql: { query: DEAD_LETTERS, variables: variablesOf(selection, page === 'console/replay' ? 1 : pageParam(ctx)) },
      links: consoleCreateLink(principalOf(ctx), 'replay', CONSOLE_PATHS.replay),
      notice: doneNotice(ctx),
      ...extra,
    });

  router.get(CONSOLE_PATHS.deadLetters, signedIn, (ctx) => show(ctx, 'console/dead-letters', selectionOf(ctx, ctx.query)));

  router.get(CONSOLE_PATHS.replay, signedIn, (ctx) => show(ctx, 'console/replay', selectionOf(ctx, ctx.query)));

  router.post(CONSOLE_PATHS.replay, signedIn, async (ctx) => {
    const selection = selectionOf(ctx, formOf(ctx));
    await orShowAgain(ctx, async () => {
      const { recovered, more } = await replay(deps, scopeFor(ctx), selection);
      const kept = Object.fromEntries(Object.entries(selection).filter(([, value]) => value !== ''));
      redirectDone(ctx, CONSOLE_PATHS.deadLetters, 'replayed', { ...kept, replayed: String(recovered), ...(more ? { more: 'true' } : {}) });
    }, (errors, status) => show(ctx, 'console/replay', selection, { errors, status }));
  });
}

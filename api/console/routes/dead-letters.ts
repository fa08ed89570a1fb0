/**
 * The dead letter queue: dead deliveries filtered by endpoint and time range (and owner, for
 * admins), one retry each, and the replay of the whole selection after a confirmation that says
 * how many it queues again and how many it leaves dead and why, counted by the core's own rule
 * (shared/webhooks/deliveries/replay.ts, replayable.ts).
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import {
  previewReplay,
  replayDeadDeliveries,
  type ReplayPreview,
  type ReplaySelection,
} from '../../../shared/webhooks/deliveries/index.ts';
import { isAppError } from '../../../shared/errors/app-error.ts';
import type { PageError } from '../pages/page-object.ts';
import {
  doneNotice,
  field,
  formOf,
  allTenants,
  orShowAgain,
  pageFor,
  param,
  principalOf,
  redirectDone,
  actorFor,
  signedIn,
  type ConsoleDeps,
} from '../context.ts';
import { pageChecked, pageParam } from '../paging.ts';
import { timeField, timeFilters } from '../forms.ts';
import { consoleCreateLink } from '../links.ts';
import { CONSOLE_PATHS } from '../paths.ts';
import { DEAD_LETTERS } from '../queries.ts';
import { tenantChoices } from './overview.ts';

type Selection = { endpoint: string; owner: string; since: string; until: string };

const selectionOf = (ctx: Context, source: Record<string, unknown>): Selection => ({
  endpoint: field(source, 'endpoint') ?? '',
  owner: allTenants(ctx) ? (field(source, 'owner') ?? '') : '',
  since: field(source, 'since') ?? '',
  until: field(source, 'until') ?? '',
});

/** The page query's variables (a time the core refuses is left out: the page names it, forms.ts). */
const variablesOf = (selection: Selection, page: number) => {
  const { since, until } = timeFilters(selection);
  return {
    endpoint: selection.endpoint || null,
    ...(selection.owner === '-' ? { withoutOwner: true } : { owner: selection.owner || null }),
    since,
    until,
    page,
  };
};

/**
 * The form's selection as the core's: `-` is endpoints without owner, empty fields are left out;
 * a time as typed (never dropped: the core refuses a malformed one rather than replay more).
 */
const replaySelection = (selection: Selection): ReplaySelection => ({
  ...(selection.endpoint ? { endpoint: selection.endpoint } : {}),
  ...(selection.owner ? { owner: selection.owner === '-' ? null : selection.owner } : {}),
  ...(selection.since ? { since: timeField(selection.since) } : {}),
  ...(selection.until ? { until: timeField(selection.until) } : {}),
});

/**
 * What a replay did, after its redirect (`?done=replayed&replayed=<n>[&more=true]`): how many were
 * queued again, and when none were, why (the deliveries of disabled endpoints are left out of a
 * replay of several endpoints, and still listed here), so the page never says a replay queued
 * deliveries it did not.
 */
function replayedNotice(ctx: Context): string | undefined {
  if (param(ctx, 'done') !== 'replayed') return undefined;
  const count = Number(param(ctx, 'replayed') ?? '0');
  if (!Number.isSafeInteger(count) || count <= 0)
    return 'No dead delivery is queued again: those of disabled endpoints stay dead until their endpoint is enabled.';
  const more = param(ctx, 'more') === 'true' ? ' More remain: replay again for the rest.' : '';
  return `${count} dead deliver${count === 1 ? 'y is' : 'ies are'} queued again.${more}`;
}

export function deadLetterRoutes(router: Router, deps: ConsoleDeps): void {
  const show = async (
    ctx: Context,
    page: 'console/dead-letters' | 'console/replay',
    selection: Selection,
    extra: { errors?: PageError[]; status?: number; preview?: ReplayPreview | null } = {},
  ) => {
    const timeErrors = timeFilters(selection).errors;
    // the core's refusal of a time the page already names (a replay of the selection) is said once
    const fieldOf = (error: PageError) => (error.data as { field?: unknown } | undefined)?.field;
    const sameField = (error: PageError) =>
      timeErrors.some((time) => time.code === error.code && fieldOf(time) === fieldOf(error));
    return ctx.render(
      page,
      {
        selection,
        tenants: await tenantChoices(ctx, deps),
        admin: allTenants(ctx),
        ...(page === 'console/replay' ? { preview: extra.preview ?? null } : {}),
      },
      {
        graphql: {
          query: DEAD_LETTERS,
          variables: variablesOf(selection, page === 'console/replay' ? 1 : pageParam(ctx)),
        },
        links: consoleCreateLink(principalOf(ctx), 'replay', CONSOLE_PATHS.replay, 'endpoints.recover'),
        notice: replayedNotice(ctx) ?? doneNotice(ctx),
        errors: [...timeErrors, ...(extra.errors ?? []).filter((error) => !sameField(error))],
        status: extra.status ?? (timeErrors.length > 0 ? 422 : undefined),
      },
    );
  };

  router.get(CONSOLE_PATHS.deadLetters, signedIn, pageChecked, (ctx) =>
    show(ctx, 'console/dead-letters', selectionOf(ctx, ctx.query)),
  );

  /**
   * What the replay of `selection` would do, counted by the core's own rule (a selection it
   * refuses, a malformed time say, gives null: the page's query shows the reason).
   */
  const previewOf = async (ctx: Context, selection: Selection): Promise<ReplayPreview | null> => {
    try {
      return await previewReplay(deps.webhooks, actorFor(ctx), replaySelection(selection));
    } catch (error) {
      if (isAppError(error) && error.status < 500) return null;
      throw error;
    }
  };

  // the confirmation leads only to the replay: refused, as the replay is, to a role that may not
  router.get(CONSOLE_PATHS.replay, signedIn, async (ctx) => {
    pageFor(ctx, 'endpoints.recover');
    const selection = selectionOf(ctx, ctx.query);
    await show(ctx, 'console/replay', selection, { preview: await previewOf(ctx, selection) });
  });

  router.post(CONSOLE_PATHS.replay, signedIn, async (ctx) => {
    const selection = selectionOf(ctx, formOf(ctx));
    await orShowAgain(
      ctx,
      async () => {
        const { recovered, more } = await replayDeadDeliveries(
          deps.webhooks,
          actorFor(ctx),
          replaySelection(selection),
        );
        const kept = Object.fromEntries(Object.entries(selection).filter(([, value]) => value !== ''));
        redirectDone(ctx, CONSOLE_PATHS.deadLetters, 'replayed', {
          ...kept,
          replayed: String(recovered),
          ...(more ? { more: 'true' } : {}),
        });
      },
      async (errors, status) =>
        show(ctx, 'console/replay', selection, { errors, status, preview: await previewOf(ctx, selection) }),
    );
  });
}

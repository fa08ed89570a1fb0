/** An endpoint's pages: register, its settings and deliveries, and the changes of its settings. */
import type Router from '@koa/router';
import type { Context } from 'koa';
import {
  disableEndpoint,
  enableEndpoint,
  maskedEndpoint,
  registerEndpoint,
  showEndpoint,
  updateEndpoint,
} from '../../../shared/webhooks/endpoints/index.ts';
import type { FilterMiss } from '../../../shared/webhooks/filters/grammar.ts';
import { testFilter } from '../../../shared/webhooks/filters/try.ts';
import { parseFilterText, parseJsonData } from '../../../shared/webhooks/text-input.ts';
import { publicEndpoint } from '../../../shared/webhooks/public-shapes.ts';
import type { PageError } from '../pages/page-object.ts';
import {
  actorFor,
  allTenants,
  doneNotice,
  field,
  formOf,
  orShowAgain,
  pageFor,
  param,
  principalOf,
  redirectDone,
  signedIn,
  windowParam,
  type ConsoleDeps,
} from '../context.ts';
import { pageChecked, pageParam } from '../paging.ts';
import { echo, registerInput, settingsPatch, timeFilters, timeOfForm } from '../forms.ts';
import { endpointPageLinks } from '../links.ts';
import { CONSOLE_PATHS, consolePath } from '../paths.ts';
import { ENDPOINT } from '../queries.ts';
import { tenantChoices } from './overview.ts';
import { catalogHints, eventChoices } from './event-types.ts';
import { onceDeps, showOnce, takeOnce } from '../once.ts';

const REGISTER_FIELDS = [
  'url',
  'events',
  'filter',
  'description',
  'owner',
  'headers',
  'signing',
  'rateLimit',
  'ordering',
] as const;
const STATUSES = ['pending', 'running', 'done', 'dead'];

/** What the "try it" box shows again: what was typed, and the answer once there is one. */
interface TryIt {
  form: Record<string, string>;
  result?: { matches: boolean; failed: FilterMiss | null };
}

/** The endpoint page (settings, health, deliveries with filters and paging), optionally with a refused form's errors. */
export async function showEndpointPage(
  ctx: Context,
  deps: ConsoleDeps,
  id: string,
  options: {
    errors?: PageError[];
    status?: number;
    form?: Record<string, string>;
    tryIt?: TryIt;
    /** The test event form's type and data as typed (after a refusal). */
    test?: Record<string, string>;
  } = {},
): Promise<void> {
  const status = param(ctx, 'status');
  const filters = {
    status: status && STATUSES.includes(status) ? status : '',
    type: param(ctx, 'type') ?? '',
    since: param(ctx, 'since') ?? '',
    until: param(ctx, 'until') ?? '',
  };
  const window = windowParam(ctx);
  const times = timeFilters(filters);
  const hints = await catalogHints(ctx, deps);
  await ctx.render(
    'console/endpoint',
    {
      filters,
      form: options.form ?? null,
      statuses: STATUSES,
      tryIt: options.tryIt ?? null,
      test: options.test ?? null,
      window,
      eventChoices: hints.choices,
      examples: hints.examples,
    },
    {
      graphql: {
        query: ENDPOINT,
        variables: {
          id,
          status: filters.status ? [filters.status.toUpperCase()] : null,
          type: filters.type || null,
          since: times.since,
          until: times.until,
          page: pageParam(ctx),
          window: window.toUpperCase(),
        },
      },
      links: (data) => endpointPageLinks(principalOf(ctx), data?.webhookEndpoint),
      errors: [...times.errors, ...(options.errors ?? [])],
      status: options.status ?? (times.errors.length > 0 ? 422 : undefined),
      notice: doneNotice(ctx),
    },
  );
}

export function endpointRoutes(router: Router, deps: ConsoleDeps): void {
  const showCreated = (ctx: Context, props: Record<string, unknown>, status: number) =>
    ctx.render('console/endpoint-created', props, {
      status,
      links: endpointPageLinks(principalOf(ctx), {
        externalId: (props.endpoint as { externalId: string }).externalId,
        enabled: true,
      }),
    });

  const showNew = async (ctx: Context, form: Record<string, string>, errors?: PageError[], status?: number) =>
    ctx.render(
      'console/endpoint-new',
      {
        form,
        admin: allTenants(ctx),
        tenants: await tenantChoices(ctx, deps),
        eventChoices: await eventChoices(ctx, deps),
      },
      { errors, status },
    );

  // a role that may not register gets the refusal (the console's error page), not a form it can only be refused at
  router.get(CONSOLE_PATHS.newEndpoint, signedIn, (ctx) => {
    pageFor(ctx, 'endpoints.register');
    return showNew(ctx, { ...echo({}, REGISTER_FIELDS), events: '*', owner: param(ctx, 'owner') ?? '' });
  });

  router.post(CONSOLE_PATHS.endpoints, signedIn, async (ctx) => {
    const form = formOf(ctx);
    await orShowAgain(
      ctx,
      async () => {
        const endpoint = await registerEndpoint(
          deps.webhooks,
          actorFor(ctx),
          registerInput(form, { admin: allTenants(ctx) }),
        );
        const { secret, ...rest } = endpoint;
        const shown = publicEndpoint(maskedEndpoint(rest));
        await showOnce(
          ctx,
          deps.pages.cookies,
          `${consolePath.endpoint(endpoint.id)}/created`,
          // what the page shows, small enough for the cookie
          {
            endpoint: { externalId: shown.externalId, url: shown.url, events: shown.events, signing: shown.signing },
            secret,
          },
          () => showCreated(ctx, { endpoint: shown, secret }, 201),
        );
      },
      (errors, status) => showNew(ctx, echo(form, REGISTER_FIELDS), errors, status),
    );
  });

  // the registered endpoint with its secret, once (once.ts); afterwards the endpoint's page
  router.get('/endpoints/:id/created', signedIn, async (ctx) => {
    const created = await takeOnce<Record<string, unknown>>(ctx, onceDeps(deps), ctx.path);
    if (!created || !('value' in created))
      return redirectDone(ctx, consolePath.endpoint(ctx.params.id), 'secret-shown');
    await showCreated(ctx, created.value, 200);
  });

  router.get('/endpoints/:id', signedIn, pageChecked, (ctx) => showEndpointPage(ctx, deps, ctx.params.id));

  router.post('/endpoints/:id', signedIn, async (ctx) => {
    const form = formOf(ctx);
    await orShowAgain(
      ctx,
      async () => {
        // the form carries the endpoint's updatedAt as it showed it: a change made since is not undone
        const shown = timeOfForm(form, 'updatedAt');
        await updateEndpoint(
          deps.webhooks,
          actorFor(ctx),
          ctx.params.id,
          settingsPatch(form),
          shown === undefined ? {} : { ifUpdatedAt: shown },
        );
        redirectDone(ctx, consolePath.endpoint(ctx.params.id), 'updated');
      },
      (errors, status) =>
        showEndpointPage(ctx, deps, ctx.params.id, {
          errors,
          status,
          form: echo(form, ['url', 'events', 'filter', 'description', 'headers', 'rateLimit', 'ordering']),
        }),
    );
  });

  // the "try it" box: a filter (the endpoint's, or one being written) on a sample event or one of its recent events
  router.post('/endpoints/:id/filter-test', signedIn, async (ctx) => {
    const form = formOf(ctx);
    const typed = echo(form, ['filter', 'eventId', 'sample']);
    await orShowAgain(
      ctx,
      async () => {
        // another tenant's endpoint is a 404 here as on its page; an event out of reach is a 404 in the core
        await showEndpoint(deps.webhooks, actorFor(ctx), ctx.params.id);
        const eventId = field(form, 'eventId');
        const result = await testFilter(deps.webhooks, actorFor(ctx), {
          filter: parseFilterText(field(form, 'filter'), 'the filter') ?? null,
          ...(eventId ? { eventId } : { event: parseJsonData(field(form, 'sample'), 'the sample event') }),
        });
        await showEndpointPage(ctx, deps, ctx.params.id, {
          tryIt: { form: typed, result: { matches: result.matches, failed: result.failed } },
        });
      },
      (errors, status) => showEndpointPage(ctx, deps, ctx.params.id, { errors, status, tryIt: { form: typed } }),
    );
  });

  for (const action of ['enable', 'disable'] as const) {
    router.post(`/endpoints/:id/${action}`, signedIn, async (ctx) => {
      const reason = field(formOf(ctx), 'reason');
      await orShowAgain(
        ctx,
        async () => {
          if (action === 'enable') await enableEndpoint(deps.webhooks, actorFor(ctx), ctx.params.id);
          else await disableEndpoint(deps.webhooks, actorFor(ctx), ctx.params.id, reason ? { reason } : {});
          redirectDone(ctx, consolePath.endpoint(ctx.params.id), action === 'enable' ? 'enabled' : 'disabled');
        },
        (errors, status) => showEndpointPage(ctx, deps, ctx.params.id, { errors, status }),
      );
    });
  }
}

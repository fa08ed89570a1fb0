/**
 * The event-type catalog (`/event-types`, docs/events.md "Event-type catalog"): every role, a
 * portal's tenant too, reads the list and each type's description, schema and examples; the add
 * form, a type's form and its deprecation button call the catalog's core functions, which decide
 * who may change it (admins). Pages show the forms only where the permission table offers them.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { createEventType, listEventTypes, updateEventType } from '../../../shared/webhooks/event-types/index.ts';
import type { PageError } from '../pages/page-object.ts';
import {
  actorFor,
  doneNotice,
  formOf,
  orShowAgain,
  principalOf,
  redirectDone,
  signedIn,
  type ConsoleDeps,
} from '../context.ts';
import { changeDone, EVENT_TYPE_FIELDS, eventTypeChanges, eventTypeInput } from '../event-type-forms.ts';
import { echo } from '../forms.ts';
import { consoleCreateLink, eventTypePageLinks } from '../links.ts';
import { CONSOLE_PATHS, consolePath } from '../paths.ts';
import { EVENT_TYPE, EVENT_TYPES } from '../queries.ts';
import { pageChecked, pageParam } from '../paging.ts';

/** Most catalog names the endpoint forms suggest (the first in name order). */
export const EVENT_NAME_CHOICES = 500;

/** What the endpoint pages take from the catalog: the events their forms suggest, and a sample's data. */
export interface CatalogHints {
  /**
   * The catalog's types that are not deprecated, each with the families above it (`order.*` for
   * `order.paid`), in name order. Suggestions only: the field takes any pattern.
   */
  choices: string[];
  /** Each such type's first example: the data of the filter try's sample, which its schema takes. */
  examples: Record<string, unknown>;
}

/** The catalog's hints for the endpoint pages, from its first {@link EVENT_NAME_CHOICES} types. */
export async function catalogHints(ctx: Context, deps: ConsoleDeps): Promise<CatalogHints> {
  const { records } = await listEventTypes(deps.webhooks, actorFor(ctx), {
    includeDeprecated: false,
    page: 1,
    perPage: EVENT_NAME_CHOICES,
  });
  const choices = new Set<string>();
  const examples: Record<string, unknown> = {};
  for (const { name, examples: given } of records) {
    const segments = name.split('.');
    for (let depth = 1; depth < segments.length; depth += 1) choices.add(`${segments.slice(0, depth).join('.')}.*`);
    choices.add(name);
    if (given.length > 0) examples[name] = given[0];
  }
  return { choices: [...choices].sort(), examples };
}

/** What the endpoint forms suggest for their events ({@link CatalogHints.choices}). */
export async function eventChoices(ctx: Context, deps: ConsoleDeps): Promise<string[]> {
  return (await catalogHints(ctx, deps)).choices;
}

interface Shown {
  /** A refused form's fields as typed. */
  form?: Record<string, string> | null;
  errors?: PageError[];
  status?: number;
}

export function eventTypeRoutes(router: Router, deps: ConsoleDeps): void {
  const showCatalog = (ctx: Context, shown: Shown = {}) =>
    ctx.render(
      'console/event-types',
      { form: shown.form ?? echo({}, EVENT_TYPE_FIELDS) },
      {
        graphql: { query: EVENT_TYPES, variables: { page: pageParam(ctx) } },
        links: consoleCreateLink(principalOf(ctx), 'create', CONSOLE_PATHS.eventTypes, 'eventTypes.create'),
        errors: shown.errors,
        status: shown.status,
        notice: doneNotice(ctx),
      },
    );

  const showType = (ctx: Context, name: string, shown: Shown = {}) =>
    ctx.render(
      'console/event-type',
      { form: shown.form ?? null },
      {
        graphql: { query: EVENT_TYPE, variables: { name } },
        links: (data) => eventTypePageLinks(principalOf(ctx), data?.eventType),
        errors: shown.errors,
        status: shown.status,
        notice: doneNotice(ctx),
      },
    );

  router.get(CONSOLE_PATHS.eventTypes, signedIn, pageChecked, (ctx) => showCatalog(ctx));

  router.post(CONSOLE_PATHS.eventTypes, signedIn, async (ctx) => {
    const form = formOf(ctx);
    await orShowAgain(
      ctx,
      async () => {
        const type = await createEventType(deps.webhooks, actorFor(ctx), eventTypeInput(form));
        redirectDone(ctx, consolePath.eventType(type.name), 'event-type-added');
      },
      (errors, status) => showCatalog(ctx, { form: echo(form, EVENT_TYPE_FIELDS), errors, status }),
    );
  });

  router.get('/event-types/:name', signedIn, (ctx) => showType(ctx, ctx.params.name));

  // the type's form (description, schema, examples) and its deprecation button
  router.post('/event-types/:name', signedIn, async (ctx) => {
    const form = formOf(ctx);
    await orShowAgain(
      ctx,
      async () => {
        const changes = eventTypeChanges(form);
        const type = await updateEventType(deps.webhooks, actorFor(ctx), ctx.params.name, changes);
        redirectDone(ctx, consolePath.eventType(type.name), changeDone(changes));
      },
      (errors, status) =>
        showType(ctx, ctx.params.name, {
          // the deprecation button sends none of the form's fields: the form shows the stored ones
          form: Object.hasOwn(form, 'schema') ? echo(form, EVENT_TYPE_FIELDS) : null,
          errors,
          status,
        }),
    );
  });
}

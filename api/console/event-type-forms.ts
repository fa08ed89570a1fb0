/**
 * The catalog's console forms as the core's inputs (shared/webhooks/event-types/catalog.ts): the
 * schema and the examples are typed as JSON text, which is read here; everything else about the
 * values (the name, the schema's validity, the examples against it, who may send them) the core
 * decides.
 */
import { unprocessable } from '../../shared/errors/app-error.ts';
import type { EventTypeInput } from '../../shared/webhooks/event-types/index.ts';
import { field } from './context.ts';

type Form = Record<string, unknown>;

/** The fields of the add and change forms, shown again as typed after a refusal. */
export const EVENT_TYPE_FIELDS = ['name', 'description', 'schema', 'examples'] as const;

/**
 * JSON typed in a field: undefined when empty, else its value; text that is not JSON is a 422
 * with the catalog's code for that field, naming the parser's reason, so the form shows again.
 */
function jsonField(form: Form, name: 'schema' | 'examples'): unknown {
  const text = field(form, name);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    const reason = `not valid JSON: ${(error as Error).message}`;
    throw unprocessable(`${name === 'schema' ? 'the schema is' : 'the examples are'} ${reason}`, {
      code: name === 'schema' ? 'APP_WEBHOOK_EVENT_SCHEMA_INVALID' : 'APP_WEBHOOK_EVENT_TYPE_INVALID',
      data: { field: name, reason },
    });
  }
}

/** The add form: name, description, schema (JSON; empty: none), examples (a JSON array; empty: none). */
export function eventTypeInput(form: Form): EventTypeInput {
  const schema = jsonField(form, 'schema');
  const examples = jsonField(form, 'examples');
  return {
    name: field(form, 'name') ?? '',
    ...(field(form, 'description') ? { description: field(form, 'description') } : {}),
    ...(schema === undefined ? {} : { schema }),
    ...(examples === undefined ? {} : { examples }),
  };
}

/**
 * A change of a type: the fields the form sends change, and one sent empty is removed (no
 * description, no schema: any data, no examples), so the settings form (description, schema,
 * examples) and the deprecation buttons (`deprecated` alone) post to one address.
 * `deprecated` is `true` or `false`; any other text reaches the core, which refuses it.
 */
export function eventTypeChanges(form: Form): EventTypeInput {
  const sent = (name: string) => Object.hasOwn(form, name);
  const deprecated = field(form, 'deprecated');
  return {
    ...(sent('description') ? { description: field(form, 'description') ?? null } : {}),
    ...(sent('schema') ? { schema: jsonField(form, 'schema') ?? null } : {}),
    ...(sent('examples') ? { examples: jsonField(form, 'examples') ?? [] } : {}),
    ...(sent('deprecated')
      ? { deprecated: deprecated === 'true' ? true : deprecated === 'false' ? false : deprecated }
      : {}),
  };
}

/** Which change a form made, for the sentence its page shows after the redirect. */
export const changeDone = (
  changes: EventTypeInput,
): 'event-type-deprecated' | 'event-type-undeprecated' | 'event-type-updated' =>
  changes.deprecated === true
    ? 'event-type-deprecated'
    : changes.deprecated === false
      ? 'event-type-undeprecated'
      : 'event-type-updated';

/**
 * `event-types:add|list|show|update`: the event-type catalog from the command line (the CLI acts
 * as an admin). JSON options (`--schema`, `--example`) take JSON text or `@path` of a JSON file.
 */
import { readFile } from 'node:fs/promises';
import { badRequest } from '../../shared/errors/app-error.ts';
import type { EventType, EventTypeInput } from '../../shared/webhooks/event-types/index.ts';
import type { Argv } from 'yargs';
import { defineCommand } from '../command.ts';
import { UsageError } from '../failure.ts';
import type { CliContext } from '../context.ts';
import { OPERATOR } from '../../shared/access/actor.ts';

const deps = (context: CliContext) => ({ sql: context.sql(), log: context.log });

/** The catalog's functions, loaded when an action runs (`--help` reads the options alone). */
const catalog = () => import('../../shared/webhooks/event-types/index.ts');

/** JSON text, or `@file` holding it. Throws 400 `APP_CLI_JSON_INVALID` naming the option. */
async function json(option: string, text: string): Promise<unknown> {
  let source = text;
  if (text.startsWith('@'))
    source = await readFile(text.slice(1), 'utf8').catch((error: Error) => {
      throw badRequest(`--${option}: cannot read ${text.slice(1)}: ${error.message}`, { code: 'APP_CLI_JSON_INVALID' });
    });
  try {
    return JSON.parse(source);
  } catch (error) {
    throw badRequest(`--${option} is not valid JSON: ${(error as Error).message}`, {
      code: 'APP_CLI_JSON_INVALID',
      data: { field: option },
    });
  }
}

/** The fields the options give; `--no-schema` reaches here as `schema: false` (yargs' negation of `--schema`). */
async function fields(args: {
  description?: string;
  schema?: string | false;
  example?: string[];
  deprecated?: boolean;
}): Promise<EventTypeInput> {
  return {
    ...(args.description !== undefined ? { description: args.description } : {}),
    ...(args.schema === false ? { schema: null } : {}),
    ...(typeof args.schema === 'string' ? { schema: await json('schema', args.schema) } : {}),
    ...(args.example !== undefined
      ? { examples: await Promise.all(args.example.map((example) => json('example', example))) }
      : {}),
    ...(args.deprecated !== undefined ? { deprecated: args.deprecated } : {}),
  };
}

function typeText(type: EventType): string {
  return [
    `name:        ${type.name}${type.deprecated ? '  (deprecated)' : ''}`,
    `description: ${type.description || '(none)'}`,
    `schema:      ${type.schema === null ? '(none: any data)' : JSON.stringify(type.schema)}`,
    `examples:    ${type.examples.length === 0 ? '(none)' : type.examples.map((example) => JSON.stringify(example)).join('\n             ')}`,
  ].join('\n');
}

/**
 * The options of `event-types:add` and `event-types:update`. `--no-schema` (no schema: any data
 * is accepted; on add, the default) is declared as an option of its own: `--help` and docs/cli.md
 * list it, and the command line's rules (cli/command-line.ts) accept it; yargs reads it as
 * `schema: false`.
 */
const common = <T>(yargs: Argv<T>, noSchema: string) =>
  yargs
    .option('description', { type: 'string', describe: 'What the event means' })
    .option('schema', {
      type: 'string',
      describe: "JSON Schema (draft 2020-12) of the events' data: JSON text or @file.json",
    })
    .option('no-schema', { type: 'boolean', describe: noSchema })
    .option('example', { type: 'string', array: true, describe: 'An example of data (JSON or @file; repeatable)' })
    .option('deprecated', { type: 'boolean', describe: 'Mark the type deprecated (still accepted)' });

export const eventTypesAddCommand = defineCommand({
  builder: (yargs) =>
    common(
      yargs.positional('name', { type: 'string', demandOption: true, describe: 'Event name, e.g. order.paid' }),
      'No schema: any data is accepted (the default)',
    ),
  run: async (context, args) => {
    const { createEventType } = await catalog();
    const type = await createEventType(deps(context), OPERATOR, { name: args.name, ...(await fields(args as never)) });
    context.print(type, () => typeText(type));
  },
});

export const eventTypesUpdateCommand = defineCommand({
  builder: (yargs) =>
    common(
      yargs.positional('name', { type: 'string', demandOption: true, describe: 'Event name' }),
      'Remove the schema (any data is accepted again)',
    ),
  run: async (context, args) => {
    const { updateEventType } = await catalog();
    const changes = await fields(args as never);
    // a command line that names nothing to change is a wrong command line (exit 2), as for webhooks:update
    if (Object.keys(changes).length === 0) {
      throw new UsageError('nothing to update: give --description, --schema/--no-schema, --example or --deprecated');
    }
    const type = await updateEventType(deps(context), OPERATOR, args.name, changes);
    context.print(type, () => typeText(type));
  },
});

export const eventTypesListCommand = defineCommand({
  builder: (yargs) =>
    yargs.option('deprecated', {
      type: 'boolean',
      default: true,
      describe: 'Include deprecated types (--no-deprecated leaves them out)',
    }),
  run: async (context, args) => {
    const { listEventTypes } = await catalog();
    const { records } = await listEventTypes({ ...deps(context), config: context.config }, OPERATOR, {
      includeDeprecated: args.deprecated !== false,
    });
    context.print(records, () =>
      records.length === 0
        ? 'the catalog is empty'
        : records
            .map(
              (type) =>
                `${type.name.padEnd(32)} ${type.deprecated ? '[deprecated] ' : ''}${type.schema === null ? '' : '[schema] '}${type.description ?? ''}`,
            )
            .join('\n'),
    );
  },
});

export const eventTypesShowCommand = defineCommand({
  builder: (yargs) => yargs.positional('name', { type: 'string', demandOption: true, describe: 'Event name' }),
  run: async (context, args) => {
    const { showEventType } = await catalog();
    const type = await showEventType(deps(context), OPERATOR, args.name);
    context.print(type, () => typeText(type));
  },
});

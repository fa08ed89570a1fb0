import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { defineCommand } from '../command.ts';
import { UsageError } from '../failure.ts';

/**
 * `openapi [--out FILE]`: the OpenAPI 3.1 description of the application (docs/http-api.md "OpenAPI
 * description"), built from the discovered models, controllers and routes as the web process
 * builds them, without listening; with a database configured it reads the event-type catalog
 * into the `webhooks` object (`--no-event-types` does not). Prints the JSON document on stdout,
 * or writes it to `--out` and prints the file's path.
 */
/** Why `--out` could not be written, in words, for the usual errors. */
const WRITE_PROBLEMS: Record<string, string> = {
  ENOENT: 'no such directory',
  ENOTDIR: 'a part of the path is not a directory',
  EACCES: 'permission denied',
  EISDIR: 'it is a directory',
  EROFS: 'read-only file system',
};

export const openapiCommand = defineCommand({
  builder: (yargs) =>
    yargs
      .option('out', { type: 'string', describe: 'write the document to this file and print its path' })
      .option('event-types', {
        type: 'boolean',
        default: true,
        describe:
          'describe the event-type catalog as the `webhooks` object (read from the database when one is configured; --no-event-types leaves it out)',
      }),
  run: async (context, args) => {
    // checked first: a blank path (an unset `--out "$FILE"`) would otherwise print on stdout
    if (args.out !== undefined && args.out.trim() === '')
      throw new UsageError('--out needs the path of the file to write (leave it out to print on stdout)');
    const { openapiDocument } = await import('../../api/openapi/document.ts');
    const { discoverApiOffline } = await import('../../api/openapi/offline.ts');
    const { listEventTypes } = await import('../../shared/webhooks/event-types/index.ts');
    const { OPERATOR } = await import('../../shared/access/actor.ts');
    const eventTypes =
      args['event-types'] && context.config.databaseUrl
        ? (await listEventTypes({ sql: context.sql(), config: context.config }, OPERATOR)).records
        : undefined;
    const document = openapiDocument({ config: context.config, api: await discoverApiOffline(), eventTypes });
    const text = `${JSON.stringify(document, null, 2)}\n`;
    if (args.out !== undefined) {
      const path = resolve(args.out);
      await writeFile(path, text).catch((error: NodeJS.ErrnoException) => {
        throw new Error(`cannot write ${path}: ${WRITE_PROBLEMS[error.code ?? ''] ?? error.message}`);
      });
      context.print({ path }, () => path);
    } else {
      context.io.stdout.write(text);
    }
  },
});

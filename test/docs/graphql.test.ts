/**
 * docs/graphql.md shows the webhook schema's `Query` and `Mutation` fields as SDL a client writes
 * its operations from: every field it shows must be declared in the service's own GraphQL types
 * (api/graphql/), with the same arguments, defaults and type, and every field declared must be
 * shown, so a field renamed, an argument added or a default changed in the code fails here until
 * the page says it too.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../helpers/processes.ts';

/** The field lines of the `type Query` / `type Mutation` blocks of an SDL text, comments and descriptions dropped. */
function rootFields(sdl: string): string[] {
  return [...sdl.matchAll(/^\s*(?:extend )?type (?:Query|Mutation) \{\n([\s\S]*?)^\s*\}/gm)].flatMap((block) =>
    block[1]
      .split('\n')
      .map((line) => line.replace(/#.*$/, '').trim())
      .filter((line) => /^\w+[(:]/.test(line)),
  );
}

const page = readFileSync(join(ROOT, 'docs/graphql.md'), 'utf8');
const shown = rootFields(
  /### Webhook endpoints, events and deliveries[\s\S]*?```graphql\n([\s\S]*?)```/.exec(page)?.[1] ?? '',
);
const SOURCES = readdirSync(join(ROOT, 'api/graphql/webhooks'))
  .filter((name) => name.endsWith('.ts'))
  .map((name) => readFileSync(join(ROOT, 'api/graphql/webhooks', name), 'utf8'));
const declared = SOURCES.flatMap(rootFields);

describe('docs/graphql.md webhook schema', () => {
  it('shows every Query and Mutation field of the webhook schema as it is declared', () => {
    assert.ok(shown.length >= 20, `the page shows ${shown.length} fields`);
    assert.deepEqual(
      shown.filter((field) => !declared.includes(field)),
      [],
      'fields the page shows that the schema does not declare so',
    );
    assert.deepEqual(
      declared.filter((field) => !shown.includes(field)),
      [],
      'fields the schema declares that the page does not show',
    );
  });
});

/**
 * docs/configuration.md is generated from the configuration schema (shared/config/reference.ts):
 * the committed page must be exactly what `npm run docs:config` writes, so a key added to the
 * schema without regenerating the page fails here.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { configPage } from '../../shared/config/reference.ts';
import { leaves } from '../../shared/config/index.ts';

const page = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');

describe('docs/configuration.md', () => {
  it('is the page generated from the config schema (run npm run docs:config)', () => {
    assert.equal(page, configPage());
  });

  it('names every config key', () => {
    for (const { key } of leaves()) assert.ok(page.includes(`\`${key}\``), `docs/configuration.md lacks ${key}`);
  });
});

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { withReference } from '../../shared/config/reference.ts';
import { leaves } from '../../shared/config/index.ts';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('holds the configuration reference generated from the config schema (run npm run docs:config)', () => {
    assert.equal(readme, withReference(readme));
  });

  it('names every config key', () => {
    for (const { key } of leaves()) assert.ok(readme.includes(`\`${key}\``), `README lacks ${key}`);
  });

  it('shows the two commands a newcomer needs', () => {
    assert.match(readme, /npm install && npm start/);
    assert.match(readme, /npm test/);
  });
});

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { withReference } from '../../shared/config/reference.ts';
import { leaves } from '../../shared/config/index.ts';
import { GRANTS, OPERATION_TEXT, OPERATIONS, PERMISSIONS, type Operation } from '../../shared/access/permissions.ts';

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

describe('README error codes', () => {
  /** Codes that only name a programming error inside the service; never answered to a client. */
  const INTERNAL = new Set(['APP_WEBHOOK_BACKOFF_INVALID', 'APP_WEBHOOK_RANGE_INVALID', 'APP_WEBHOOK_OUTCOME_UNKNOWN', 'APP_WEBHOOK_DELIVERY_TIMEOUT']);

  it('lists every APP_ error code the service can answer', async () => {
    const { readdir, readFile } = await import('node:fs/promises');
    const root = new URL('../../', import.meta.url);
    const codes = new Set<string>();
    for (const dir of ['api', 'shared', 'worker']) {
      for (const file of await readdir(new URL(dir, root), { recursive: true })) {
        if (!file.endsWith('.ts')) continue;
        const text = await readFile(new URL(`${dir}/${file}`, root), 'utf8');
        for (const match of text.matchAll(/'(APP_[A-Z][A-Z_]+)'/g)) codes.add(match[1]);
      }
    }
    codes.delete('APP_CONFIG'); // an environment variable, not an error code
    assert.ok(codes.size > 40);
    const missing = [...codes].filter((code) => !INTERNAL.has(code) && !readme.includes(`\`${code}\``));
    assert.deepEqual(missing, []);
  });
});

describe('README permission table', () => {
  it('shows the permission table every face and the core decide by (shared/access/permissions.ts)', () => {
    const mark = (operation: Operation, grant: string) => ((PERMISSIONS[operation] as readonly string[]).includes(grant) ? 'yes' : '-');
    const table = [
      `| Operation | What it is | ${GRANTS.join(' | ')} |`,
      `|---|---|${GRANTS.map(() => '---').join('|')}|`,
      ...OPERATIONS.map((operation) => `| \`${operation}\` | ${OPERATION_TEXT[operation]} | ${GRANTS.map((grant) => mark(operation, grant)).join(' | ')} |`),
    ].join('\n');
    assert.ok(readme.includes(table), `the README's Accounts section should hold this table:\n${table}`);
  });
});

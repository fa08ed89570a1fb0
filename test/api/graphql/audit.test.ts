import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { auditServer, type AuditResult } from 'graphql-http';
import { startGraphqlApp } from './fixtures.ts';

/** Every audit that is not ok, for the failure message. */
const failures = (results: AuditResult[]) =>
  results
    .filter((result) => result.status !== 'ok')
    .map((result) => `${result.status} ${result.id} ${result.name}: ${'reason' in result ? result.reason : ''}`);

describe('GraphQL over HTTP: the graphql-http server audit suite against the live server', () => {
  it('passes every audit, MUST, SHOULD and MAY alike (0 errors, 0 warnings)', async () => {
    const app = await startGraphqlApp();
    const results = await auditServer({ url: `${app.base}/_app/gql` });
    assert.ok(results.length >= 60, `ran ${results.length} audits`);
    assert.deepEqual(failures(results), []);
  });

  it('passes them all in production too, where introspection is off', async () => {
    const app = await startGraphqlApp({ env: 'production' });
    const results = await auditServer({ url: `${app.base}/_app/gql` });
    assert.deepEqual(failures(results), []);
  });
});

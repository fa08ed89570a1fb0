/**
 * docs/operations.md, "Security audit and production guards", lists every finding `app audit`
 * can raise with its severity: a deployer reading a finding's id in a boot line looks it up there,
 * so the table names each rule of shared/security/audit.ts, at its severity, and no other.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { AUDIT_FINDINGS } from '../../shared/security/audit.ts';
import { ROOT } from '../helpers/processes.ts';

/** The finding ids and severities of the table headed `| Finding | Severity | Raised by |`. */
function documentedFindings(document: string): Map<string, string> {
  const start = document.indexOf('| Finding | Severity | Raised by |');
  assert.ok(start >= 0, 'no table of findings');
  const rows = document.slice(start).split('\n\n')[0].split('\n').slice(2);
  const findings = new Map<string, string>();
  for (const row of rows) {
    const [, ids, severity] = row.split('|').map((cell) => cell.trim());
    for (const [, id] of ids.matchAll(/`([^`]+)`/g)) findings.set(id, severity);
  }
  return findings;
}

describe('docs/operations.md: the security audit', () => {
  it('lists every finding the audit raises at its severity, and none it does not', () => {
    const documented = documentedFindings(readFileSync(join(ROOT, 'docs/operations.md'), 'utf8'));
    const raised = new Map(AUDIT_FINDINGS.map((finding) => [finding.id, finding.severity]));
    assert.ok(raised.size > 10, 'the audit has its rules');
    assert.deepEqual(Object.fromEntries([...documented].sort()), Object.fromEntries([...raised].sort()));
  });
});

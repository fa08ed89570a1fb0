import type { AuditFacts, Finding } from '../../shared/security/audit.ts';
import { defineCommand } from '../command.ts';
import { webhookDeps } from '../support/webhooks.ts';

function table(findings: readonly Finding[]): string {
  if (findings.length === 0) return 'no findings';
  return findings
    .map(
      (finding) =>
        `${finding.severity.toUpperCase().padEnd(6)} ${finding.id} (${finding.setting})\n       ${finding.message}\n       remedy: ${finding.remedy}`,
    )
    .join('\n');
}

/**
 * `app audit [--json]`: the security audit of the effective configuration and of the database
 * (signing secrets and url credentials stored unencrypted, counted, never printed). Exit status 1 when a high finding stands. Runs even when
 * the production guard would refuse the config, since it says why.
 */
export const auditCommand = defineCommand({
  productionGuard: false,
  run: async (context) => {
    const { auditConfig, summarize } = await import('../../shared/security/audit.ts');
    const { databaseFacts } = await import('../../shared/security/audit-facts.ts');
    let facts: AuditFacts = {};
    let database: string;
    if (context.config.databaseUrl) {
      try {
        facts = await databaseFacts(webhookDeps(context));
        database = 'checked';
      } catch (error) {
        database = `not checked: ${(error as Error).message.split('\n')[0]}`;
      }
    } else {
      database = 'not checked: no DATABASE_URL';
    }
    const findings = auditConfig(context.config, facts);
    const counts = summarize(findings);
    context.print(
      { env: context.config.env, database, findings, summary: counts },
      () => `security audit (${context.config.env}; database ${database})\n${table(findings)}`,
    );
    if (counts.high > 0) context.exit(1);
  },
});

import type { AuditFacts, Finding } from '../../shared/security/audit.ts';
import { defineCommand } from '../command.ts';
import { EXIT, type Failure, failureOf } from '../failure.ts';

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
 * (signing secrets and url credentials stored unencrypted, counted, never printed). Runs even when
 * the production guard would refuse the config, since it says why. Exit status 1 when a high
 * finding stands. Else, when the database was given but could not be read, the findings of the
 * configuration are printed with the reason, worded as every command words it (not migrated: run
 * `app migrate`), and the exit status is that failure's (4 for a database that cannot be reached
 * or is not migrated): an audit that could not look at the stored secrets has not passed.
 */
export const auditCommand = defineCommand({
  productionGuard: false,
  run: async (context) => {
    const { auditConfig, summarize } = await import('../../shared/security/audit.ts');
    const { databaseFacts } = await import('../../shared/security/audit-facts.ts');
    const { webhookDeps } = await import('../support/webhooks.ts');
    let facts: AuditFacts = {};
    let database: string;
    let unchecked: Failure | undefined;
    if (context.config.databaseUrl) {
      try {
        facts = await databaseFacts(webhookDeps(context));
        database = 'checked';
      } catch (error) {
        unchecked = failureOf(error, context.config.databaseUrl, context.io.database?.named);
        database = `not checked: ${unchecked.message}`;
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
    if (counts.high > 0) context.exit(EXIT.failure);
    else if (unchecked) context.exit(unchecked.exit);
  },
});

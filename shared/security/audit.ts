/**
 * The security audit (docs/operations.md "Security audit and production guards"): findings about
 * a configuration that weakens the service, each with its severity, the setting and the remedy.
 * The rules are a table (`RULES`) that `auditConfig` runs over the config and a few facts read
 * elsewhere (the database, the requests the web process saw); `app audit` prints them and exits
 * 1 on a high one, and a production boot logs their summary in one line.
 *
 * Settings that are ordinary in development or test (plain http, loopback receivers, no secret)
 * are findings only in production.
 */
import type { Config } from '../config/index.ts';
import { MIN_SECRET_LENGTH } from './production-guard.ts';

export type Severity = 'high' | 'medium' | 'low' | 'info';

export interface Finding {
  /** Stable identifier, e.g. `webhooks.private-addresses-allowed`. */
  id: string;
  severity: Severity;
  /** The configuration key (or fact) that raised it. */
  setting: string;
  message: string;
  remedy: string;
}

/** What the configuration alone cannot tell. Unknown facts raise nothing. */
export interface AuditFacts {
  /** Signing secrets in the database stored unencrypted (`plain:`) that can still sign. */
  unencryptedSecrets?: number;
  /**
   * Endpoints in the database whose url holds credentials (a broker's `user:pass@`) stored
   * unencrypted: sealed while `APP_SECRET` was unset, or written unsealed by other software.
   */
  urlCredentialsInClear?: number;
  /** Endpoints in the database with a header value stored unencrypted (`plain:`, or from before values were sealed). */
  headerValuesInClear?: number;
  /**
   * Values in the endpoint store still sealed under one of `previousSecrets` (signing secrets that
   * can still sign, header values, url credentials), each counted.
   */
  sealedUnderPrevious?: number;
  /**
   * Values in the endpoint store sealed under a secret neither `secret` nor `previousSecrets` is
   * (a database restored under another `APP_SECRET`): they cannot be read.
   */
  sealedUnopenable?: number;
  /**
   * Enabled users whose email another user, created before them, has in another case or
   * spelling (shared/accounts/email-keys.ts): two accounts where there should be one.
   */
  usersSharingEmail?: number;
  /** Requests seen with `X-Forwarded-For` while `trustProxy` is off. */
  forwardedForSeen?: boolean;
}

interface Rule {
  id: string;
  severity: Severity;
  setting: string;
  /** Production only: the setting is ordinary in development and test. */
  productionOnly: boolean;
  /** The message when the rule applies, undefined when it does not. */
  check(config: Config, facts: AuditFacts): string | undefined;
  /** What to do, or what to do given `config` (a step already taken is not asked for). */
  remedy: string | ((config: Config) => string);
}

/**
 * A high finding, in every environment, for values the endpoint store holds readable (counted by
 * audit-facts.ts): `found` says how many, `since` why there are some although APP_SECRET is set,
 * and the remedy is to seal them, after setting the secret when it is not set yet (`unchanged`:
 * what stays the same).
 */
function storedInClear(rule: {
  id: string;
  kind: string;
  count(facts: AuditFacts): number | undefined;
  found(count: number): string;
  since: string;
  unchanged: string;
}): Rule {
  return {
    id: rule.id,
    severity: 'high',
    setting: `endpoint store: ${rule.kind}`,
    productionOnly: false,
    check: (config, facts) => {
      // without a secret outside production everything is stored in clear by design (no secret
      // is ordinary there); with one, what was stored before it is a leftover to seal
      if (!config.secret && config.env !== 'production') return undefined;
      const count = rule.count(facts) ?? 0;
      return count > 0 ? `${rule.found(count)}${config.secret ? ` (${rule.since})` : ''}` : undefined;
    },
    remedy: (config) =>
      `${config.secret ? 'run' : 'set APP_SECRET, then run'} \`app secrets:seal\` (it encrypts them; ${rule.unchanged} stay the same)`,
  };
}

/**
 * What `secret.previous-configured` says: a secret APP_SECRET replaced still opens what it
 * sealed (a leaked one keeps its reach), and, when the store was read, how much is still under one.
 */
function previousSecretsMessage(configured: number, stillSealed: number | undefined): string | undefined {
  if (configured === 0) return undefined;
  const listed = `APP_PREVIOUS_SECRETS lists ${configured} previous application secret(s): what they sealed still opens`;
  if (stillSealed === undefined) return listed;
  return stillSealed === 0
    ? `${listed}; no value in the endpoint store is sealed under one any more`
    : `${listed}; ${stillSealed} value(s) in the endpoint store are still sealed under one`;
}

const RULES: readonly Rule[] = [
  {
    id: 'webhooks.private-addresses-allowed',
    severity: 'high',
    setting: 'webhooks.allowPrivate',
    productionOnly: true,
    check: (config) =>
      config.webhooks.allowPrivate
        ? 'receivers on private, loopback and metadata addresses are allowed: any endpoint can reach the internal network (SSRF)'
        : undefined,
    remedy: 'unset APP_WEBHOOKS__ALLOW_PRIVATE (webhooks.allowPrivate=false)',
  },
  {
    id: 'webhooks.http-allowed',
    severity: 'high',
    setting: 'webhooks.allowHttp',
    productionOnly: true,
    check: (config) =>
      config.webhooks.allowHttp
        ? 'plain http receivers are allowed: payloads and signatures travel unencrypted'
        : undefined,
    remedy: 'unset APP_WEBHOOKS__ALLOW_HTTP (webhooks.allowHttp=false)',
  },
  {
    id: 'secret.missing',
    severity: 'high',
    setting: 'secret',
    productionOnly: true,
    check: (config) =>
      config.secret
        ? undefined
        : 'no APP_SECRET: signing secrets, header values and url credentials are stored unencrypted in the database',
    remedy: `set APP_SECRET to a random value of at least ${MIN_SECRET_LENGTH} characters (openssl rand -base64 48)`,
  },
  {
    id: 'secret.short',
    severity: 'high',
    setting: 'secret',
    productionOnly: true,
    check: (config) =>
      config.secret && config.secret.length < MIN_SECRET_LENGTH
        ? `APP_SECRET has ${config.secret.length} characters, fewer than ${MIN_SECRET_LENGTH}`
        : undefined,
    remedy: `use a random APP_SECRET of at least ${MIN_SECRET_LENGTH} characters`,
  },
  {
    id: 'secret.previous-configured',
    severity: 'low',
    setting: 'previousSecrets',
    productionOnly: false,
    check: (config, facts) => previousSecretsMessage(config.previousSecrets.length, facts.sealedUnderPrevious),
    remedy: 'run `app secrets:seal`, then remove APP_PREVIOUS_SECRETS',
  },
  {
    id: 'secrets.unopenable',
    severity: 'high',
    setting: 'secret',
    productionOnly: false,
    check: (_config, facts) =>
      facts.sealedUnopenable
        ? `${facts.sealedUnopenable} value(s) in the endpoint store (signing secrets, header values, url credentials) are sealed under an application secret that neither APP_SECRET nor APP_PREVIOUS_SECRETS is: deliveries to those endpoints die with APP_WEBHOOK_SECRET_UNREADABLE`
        : undefined,
    remedy:
      "list the secret they were sealed under in APP_PREVIOUS_SECRETS (for a restored backup, the APP_SECRET it ran with), then run `app secrets:seal`; or rotate those endpoints' secrets",
  },
  storedInClear({
    id: 'secrets.stored-unencrypted',
    kind: 'signing secrets',
    count: (facts) => facts.unencryptedSecrets,
    found: (n) => `${n} signing secret(s) are stored unencrypted in the database`,
    since: 'stored before APP_SECRET was set',
    unchanged: 'the signing secrets',
  }),
  storedInClear({
    id: 'url-credentials.stored-unencrypted',
    kind: 'url credentials',
    count: (facts) => facts.urlCredentialsInClear,
    found: (n) => `${n} endpoint url(s) hold credentials (user:password@) stored unencrypted in the endpoint store`,
    since: 'stored before APP_SECRET was set, or written by other software',
    unchanged: 'the credentials',
  }),
  storedInClear({
    id: 'header-values.stored-unencrypted',
    kind: 'header values',
    count: (facts) => facts.headerValuesInClear,
    found: (n) =>
      `${n} endpoint(s) have header values (Authorization, API keys …) stored unencrypted in the endpoint store`,
    since: 'stored before APP_SECRET was set',
    unchanged: 'the values sent',
  }),
  {
    id: 'users.email-shared',
    severity: 'medium',
    setting: 'users: email keys',
    productionOnly: false,
    check: (_config, facts) =>
      facts.usersSharingEmail
        ? `${facts.usersSharingEmail} enabled user(s) share an email, in another case or spelling, with a user created before them: the later one signs in only with its own spelling and shares the first one's lockout`
        : undefined,
    remedy:
      "`app migrate` logs each pair (userId, sameAccountAs); disable the account that is not its owner's (`app users:disable <id>`)",
  },
  {
    id: 'graphql.introspection-enabled',
    severity: 'medium',
    setting: 'graphql.introspection',
    productionOnly: true,
    check: (config) =>
      config.graphql !== false && config.graphql.introspection
        ? 'GraphQL introspection is on: the whole schema is readable by any caller'
        : undefined,
    remedy: 'set APP_GRAPHQL__INTROSPECTION=false',
  },
  {
    id: 'graphql.graphiql-enabled',
    severity: 'medium',
    setting: 'env',
    productionOnly: false,
    check: (config) =>
      config.env === 'development' && config.graphql !== false
        ? 'GraphiQL is served on the GraphQL path (development mode)'
        : undefined,
    remedy: 'run with NODE_ENV=production',
  },
  {
    id: 'rate-limit.disabled',
    severity: 'medium',
    setting: 'rateLimit',
    productionOnly: true,
    check: (config) =>
      config.rateLimit === false ? 'every rate limit is off: nothing slows brute force or floods' : undefined,
    remedy: 'remove APP_RATE_LIMIT=false',
  },
  {
    id: 'rate-limit.auth-disabled',
    severity: 'medium',
    setting: 'rateLimit.auth',
    productionOnly: true,
    check: (config) =>
      config.rateLimit !== false && config.rateLimit.auth === false
        ? 'the authentication limiter is off: sign-in paths can be brute-forced'
        : undefined,
    remedy: 'remove APP_RATE_LIMIT__AUTH=false',
  },
  {
    id: 'auth.lockout-disabled',
    severity: 'medium',
    setting: 'auth.lockout',
    productionOnly: true,
    check: (config) =>
      config.auth.lockout === false
        ? "the sign-in lockout is off: one account's password can be guessed from many addresses"
        : undefined,
    remedy: 'remove APP_AUTH__LOCKOUT=false',
  },
  {
    id: 'public-url.missing',
    severity: 'medium',
    setting: 'publicUrl',
    productionOnly: true,
    check: (config) =>
      config.publicUrl === null
        ? "publicUrl is not set: forgotten-password mails are not sent (a link built from the request's Host header could point anywhere)"
        : undefined,
    remedy: 'set APP_PUBLIC_URL to the address people use (https://hooks.example.com)',
  },
  {
    id: 'mail.missing',
    severity: 'low',
    setting: 'mail.url',
    productionOnly: true,
    check: (config) =>
      config.mail.url === null
        ? 'mail.url is not set: forgotten-password links are not sent (operators use app users:reset-link)'
        : undefined,
    remedy: 'set APP_MAIL__URL to an SMTP server (smtp://user:pass@host:587)',
  },
  {
    id: 'cors.any-origin-with-credentials',
    severity: 'high',
    setting: 'cors',
    productionOnly: false,
    check: (config) =>
      config.cors.credentials && config.cors.origins.includes('*')
        ? "CORS allows any origin with credentials: any web page can act with a signed-in browser's rights"
        : undefined,
    remedy: 'list the allowed origins in APP_CORS__ORIGINS, or set APP_CORS__CREDENTIALS=false',
  },
  {
    id: 'trust-proxy.forwarded-ignored',
    severity: 'info',
    setting: 'trustProxy',
    productionOnly: false,
    check: (config, facts) =>
      !config.trustProxy && facts.forwardedForSeen
        ? "requests arrive with X-Forwarded-For while trustProxy is off: rate limits count the proxy's address, not the client's"
        : undefined,
    remedy: 'behind a proxy you trust, set APP_TRUST_PROXY=true',
  },
];

/** Every finding the audit can raise, with its severity (docs/operations.md lists them; a test compares). */
export const AUDIT_FINDINGS: readonly { id: string; severity: Severity }[] = RULES.map(({ id, severity }) => ({
  id,
  severity,
}));

const ORDER: Record<Severity, number> = { high: 0, medium: 1, low: 2, info: 3 };

/** The findings for `config` and `facts`, most severe first. */
export function auditConfig(config: Config, facts: AuditFacts = {}): Finding[] {
  return RULES.filter((rule) => !rule.productionOnly || config.env === 'production')
    .flatMap((rule) => {
      const message = rule.check(config, facts);
      return message === undefined
        ? []
        : [
            {
              id: rule.id,
              severity: rule.severity,
              setting: rule.setting,
              message,
              remedy: typeof rule.remedy === 'string' ? rule.remedy : rule.remedy(config),
            },
          ];
    })
    .sort((a, b) => ORDER[a.severity] - ORDER[b.severity]);
}

/** Counts by severity. */
export function summarize(findings: readonly Finding[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { high: 0, medium: 0, low: 0, info: 0 };
  for (const finding of findings) counts[finding.severity] += 1;
  return counts;
}

/** The one-line summary a production boot logs. */
export function summaryLine(findings: readonly Finding[]): string {
  if (findings.length === 0) return 'security audit: no findings';
  const counts = summarize(findings);
  const parts = (Object.keys(counts) as Severity[])
    .filter((severity) => counts[severity] > 0)
    .map((severity) => `${counts[severity]} ${severity}`);
  return `security audit: ${parts.join(', ')} (${findings.map((finding) => finding.id).join(', ')}); run \`app audit\` for the remedies`;
}

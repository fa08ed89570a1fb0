/**
 * Production guard: in production the web, the worker and the release refuse to start without a
 * database URL, and without an application secret of at least `MIN_SECRET_LENGTH` characters, unless the deployer opts into
 * unencrypted signing secrets with `allowUnencryptedSecrets` (then an application with no secret
 * stores webhook secrets unencrypted; the audit reports it as high). Development and test keep
 * their defaults: no secret needed.
 */
import type { Config } from '../config/index.ts';

/** Shortest application secret accepted in production: 32 characters (256 bits as base64 is 44). */
export const MIN_SECRET_LENGTH = 32;

/** Why this configuration may not start, or undefined when it may. One line, with the remedy. */
export function productionRefusal(
  config: Pick<Config, 'env' | 'secret' | 'allowUnencryptedSecrets' | 'databaseUrl'>,
): string | undefined {
  if (config.env !== 'production') return undefined;
  // outside production `npm start` brings a database of its own; in production nothing does
  if (!config.databaseUrl)
    return 'refusing to start in production without DATABASE_URL: set it to the PostgreSQL URL (postgres://user:password@host:5432/database)';
  const secret = config.secret ?? '';
  if (secret === '') {
    if (config.allowUnencryptedSecrets) return undefined;
    return (
      'refusing to start in production without APP_SECRET: set it to a random value of at least ' +
      `${MIN_SECRET_LENGTH} characters (e.g. openssl rand -base64 48), or set APP_ALLOW_UNENCRYPTED_SECRETS=true to store signing secrets unencrypted`
    );
  }
  if (secret.length < MIN_SECRET_LENGTH) {
    return (
      `refusing to start in production: APP_SECRET has ${secret.length} characters, at least ${MIN_SECRET_LENGTH} are needed ` +
      '(e.g. openssl rand -base64 48)'
    );
  }
  return undefined;
}

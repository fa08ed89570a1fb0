/**
 * The rule of `previousSecrets` across keys (shared/config/resolve.ts): a previous secret that is
 * the current one means the rotation was not made (or was undone), and the audit would ask to
 * remove a secret that is in use. The message never holds a secret.
 */
export function checkPreviousSecrets(value: unknown, config: Readonly<Record<string, unknown>>): string[] {
  const previous = value as readonly string[];
  const current = config.secret;
  if (typeof current !== 'string' || current === '' || !previous.includes(current)) return [];
  return [
    'previousSecrets (APP_PREVIOUS_SECRETS) holds the current secret (APP_SECRET): list only the secrets APP_SECRET replaced',
  ];
}

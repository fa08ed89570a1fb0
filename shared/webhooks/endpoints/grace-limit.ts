/**
 * Longest grace period accepted by `rotate` (one year). A module of its own so that what reads a
 * grace people type (shared/webhooks/text-input.ts) can say it without loading the endpoints' store.
 */
export const MAX_GRACE_MS = 365 * 86_400_000;

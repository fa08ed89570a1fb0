/**
 * Longest grace period accepted by `rotate` (one year). A module of its own so that what reads a
 * grace people type (shared/webhooks/text-input.ts) can say it without loading the endpoints' store.
 */
export const MAX_GRACE_MS = 365 * 86_400_000;

/**
 * Most secrets that sign a delivery at once: the newest and the four before it still in their
 * grace. A rotation with grace past that ends the oldest grace at once, so rotating again and
 * again cannot grow the `webhook-signature` header (and the work of signing every delivery)
 * without bound.
 */
export const MAX_SIGNING_SECRETS = 5;

import type { Config } from '../../shared/config/index.ts';
import type { Logger } from '../../shared/log/logger.ts';
import { once } from '../../shared/stores/once.ts';
import type { SharedStore } from '../../shared/stores/types.ts';
import type { Module } from '../lifecycle.ts';
import { idempotency } from './middleware.ts';
import { problemOptions, writeProblem } from '../middleware/errors.ts';
import type { Pipeline } from '../pipeline.ts';
import { loadIdempotencyStore } from './custom-store.ts';
import { answerSeal } from './sealed-answer.ts';

/** An in-flight claim outlives the request timeout by this much before a dead process's key frees up. */
export const CLAIM_MARGIN_MS = 60_000;

/**
 * Mounts idempotency keys in the `idempotency` route slot of every route the table marks
 * idempotent (mutating, not `idempotent: false`, never /login or /logout), unless
 * `api.idempotency` is false. Records live in the shared backend, or in the module
 * `api.idempotency.store` names; returns the module that loads the latter at boot.
 */
export function plugIdempotency(
  pipeline: Pick<Pipeline, 'useRoute'>,
  deps: { config: Config; log: Logger; shared: SharedStore },
): Module | undefined {
  const { config, log, shared } = deps;
  const settings = config.api.idempotency;
  if (settings === false) return undefined;
  const custom = settings.store
    ? once(() => loadIdempotencyStore({ config, log }, settings.store as string))
    : undefined;
  const middleware = idempotency({
    entries: custom ?? (() => shared.entries),
    ttlMs: settings.ttl,
    claimMs: config.requestTimeout + CLAIM_MARGIN_MS,
    logFailure: shared.logFailure,
    seal: answerSeal(config), // answers may carry signing secrets: never in clear in any store
    answerRefusal: (ctx, error) => writeProblem(ctx, error, problemOptions(config, log)),
  });
  pipeline.useRoute('idempotency', (route) => (route.idempotent ? middleware : undefined));
  return custom ? { name: 'idempotency-store', start: async () => void (await custom()) } : undefined;
}
